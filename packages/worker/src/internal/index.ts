/**
 * `@celeriac/worker/internal`: what the `celeriac` CLI needs from the worker beyond its public API
 * (loading an app module). Not for applications: it changes without notice. The public API is
 * `@celeriac/worker` (and `celeriac`).
 */
export { parseAutoscale } from '../autoscale-options';
export { loadAppModule, type LoadedApp } from '../load-app';
export { resolveAppModule } from '../resolve-app-module';
