/**
 * @celeriac/dashboard: a web page to watch and steer a Celeriac deployment (workers, queues, tasks,
 * failed tasks, dead letters, beat), live over server-sent events. This is the public surface.
 */
export type { DashboardApp } from './app';
export { createDashboard, type Dashboard, type ListenOptions } from './dashboard';
export {
  DASHBOARD_DEFAULTS,
  resolveDashboardOptions,
  type DashboardOptions,
  type MetricsHandler,
  type RequestHandler,
  type ResolvedDashboardOptions,
} from './options';
