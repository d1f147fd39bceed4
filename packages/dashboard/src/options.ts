/**
 * The options of {@link createDashboard}: who may see the dashboard (basic auth or a token), whether
 * it may change anything, how much history it keeps, and where a metrics handler mounts.
 */
import { CeleriacError, type Duration, type StoredEvent } from '@celeriac/core';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A Node request handler, as `http.createServer` and most Node web frameworks take it. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/**
 * What the dashboard serves at `/metrics`: a request handler, and, when it counts events (as
 * `metricsHandler(app)` of `celeriac` does), what the dashboard hands every event it reads.
 */
export interface MetricsHandler extends RequestHandler {
  /**
   * Given every event the dashboard reads from the event log, oldest first: the history it reads
   * back at its start, then each new one. The handler decides which to count.
   */
  readonly countEvent?: (event: StoredEvent) => void;
}

/** Options of {@link createDashboard}. */
export interface DashboardOptions {
  /**
   * HTTP basic authentication: the only user and password that may open the dashboard, its API and
   * its live feed. Give this or `token`, not both.
   */
  readonly basicAuth?: { readonly user: string; readonly password: string };
  /**
   * A bearer token: sent as `Authorization: Bearer <token>`, or once as `?token=<token>` in the
   * browser (the dashboard then keeps it in an HTTP-only, same-site cookie).
   */
  readonly token?: string;
  /**
   * Show everything, change nothing: every action (retry, discard, revoke, pause, purge, shutdown,
   * beat changes) is refused by the server, and the page hides its buttons.
   * @defaultValue `false`
   */
  readonly readOnly?: boolean;
  /**
   * How far back the task list and the charts reach when the dashboard starts (read from the event log).
   * @defaultValue `'1h'`
   */
  readonly history?: Duration;
  /**
   * Most tasks the task list keeps in memory (the least recently changed go first).
   * @defaultValue `10_000`
   */
  readonly maxTasks?: number;
  /**
   * How often the queue counts are sampled for the live overview and the queue depth chart, in ms.
   * @defaultValue `5_000`
   */
  readonly sampleEvery?: number;
  /**
   * Served at `/metrics` (behind the same authentication), e.g. `metricsHandler(app)`: the app's
   * gauges, and counters of the tasks run, fed by the dashboard's reader of the event log. Without
   * it, `/metrics` answers 404.
   */
  readonly metrics?: MetricsHandler;
  /**
   * The page title.
   * @defaultValue `'Celeriac'`
   */
  readonly title?: string;
}

/** The defaults of the optional fields. */
export const DASHBOARD_DEFAULTS = {
  readOnly: false,
  history: '1h',
  maxTasks: 10_000,
  sampleEvery: 5_000,
  title: 'Celeriac',
} as const satisfies Partial<DashboardOptions>;

/** Options with their defaults applied and checked. */
export interface ResolvedDashboardOptions extends DashboardOptions {
  readonly readOnly: boolean;
  readonly history: Duration;
  readonly maxTasks: number;
  readonly sampleEvery: number;
  readonly title: string;
}

/** Applies the defaults; throws `CELERIAC_INVALID_OPTION` naming the option that is wrong. */
export function resolveDashboardOptions(options: DashboardOptions): ResolvedDashboardOptions {
  if (options.basicAuth && options.token !== undefined)
    invalid('Give basicAuth or token, not both: the dashboard checks one kind of credential.');
  if (options.basicAuth && (!options.basicAuth.user || !options.basicAuth.password))
    invalid('basicAuth needs a non-empty user and password, e.g. { user: "ops", password: "..." }.');
  if (options.basicAuth?.user.includes(':'))
    invalid('basicAuth.user may not contain ":" (HTTP basic auth splits there).');
  if (options.token !== undefined && options.token.length < 8)
    invalid('token must be at least 8 characters long: a short token is easy to guess.');
  const resolved = { ...DASHBOARD_DEFAULTS, ...withoutUndefined(options) };
  if (!Number.isInteger(resolved.maxTasks) || resolved.maxTasks < 1)
    invalid(`maxTasks must be a whole number of at least 1 (got ${String(resolved.maxTasks)}).`);
  if (!Number.isFinite(resolved.sampleEvery) || resolved.sampleEvery < 100)
    invalid(`sampleEvery must be a number of milliseconds of at least 100 (got ${String(resolved.sampleEvery)}).`);
  return resolved;
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function invalid(message: string): never {
  throw new CeleriacError('CELERIAC_INVALID_OPTION', `Dashboard: ${message}`);
}
