/**
 * The options of {@link createDashboard}: who may see the dashboard (basic auth or a token), whether
 * it may change anything, how much history it keeps, and where a metrics handler mounts.
 */
import { CeleriacError, type Duration, type StoredEvent } from '@celeriac/core';
import { parseAllowedHosts, toMilliseconds } from '@celeriac/core/internal';
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
   * its live feed. Give this or `token`, not both. The password needs at least 8 characters.
   */
  readonly basicAuth?: { readonly user: string; readonly password: string };
  /**
   * A bearer token of at least 8 characters: sent as `Authorization: Bearer <token>`, or once as
   * `?token=<token>` in the browser, which then gets a session cookie instead (HTTP-only,
   * same-site, scoped to where the dashboard is mounted, `Secure` under HTTPS): a random id that
   * expires after `sessionTtl`, not the token.
   */
  readonly token?: string;
  /**
   * How long a browser's session (opened with `?token=`) lasts. Sessions live in the dashboard's
   * memory: closing or restarting it ends them all.
   * @defaultValue `'12h'`
   */
  readonly sessionTtl?: Duration;
  /**
   * Host names the dashboard answers besides loopback names (`localhost`, `*.localhost`) and IP
   * addresses: `name`, `name:port`, `.example.com` (that domain and its subdomains) or a URL (its
   * host, e.g. the public URL behind a reverse proxy). A request whose `Host` is none of these, or
   * an action whose `Origin` is none of these, is refused with 403: this is what keeps a web page
   * that rebinds its own name to this machine (DNS rebinding) from reading the dashboard or acting
   * on it. `listen({ host })` with a name adds that name.
   * @defaultValue `[]`
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Most live feeds (`/api/live`, one per open page) served at once; more are answered 503.
   * @defaultValue `100`
   */
  readonly maxLiveStreams?: number;
  /**
   * Most live feeds one client address holds at once; more are answered 503.
   * @defaultValue `10`
   */
  readonly maxLiveStreamsPerClient?: number;
  /**
   * How long a live feed stays open; then the server ends it and the page's EventSource opens a new
   * one (so an abandoned connection does not hold its slot for ever).
   * @defaultValue `'1h'`
   */
  readonly liveStreamLifetime?: Duration;
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
  sessionTtl: '12h',
  allowedHosts: [],
  maxLiveStreams: 100,
  maxLiveStreamsPerClient: 10,
  liveStreamLifetime: '1h',
  readOnly: false,
  history: '1h',
  maxTasks: 10_000,
  sampleEvery: 5_000,
  title: 'Celeriac',
} as const satisfies Partial<DashboardOptions>;

/** Options with their defaults applied and checked. */
export interface ResolvedDashboardOptions extends DashboardOptions {
  /** In milliseconds. */
  readonly sessionTtl: number;
  readonly allowedHosts: readonly string[];
  readonly maxLiveStreams: number;
  readonly maxLiveStreamsPerClient: number;
  /** In milliseconds. */
  readonly liveStreamLifetime: number;
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
  if (options.token !== undefined && options.token.length < MIN_SECRET_LENGTH)
    invalid(`token must be at least ${MIN_SECRET_LENGTH} characters long: a short token is easy to guess.`);
  if (options.basicAuth && options.basicAuth.password.length < MIN_SECRET_LENGTH)
    invalid(`basicAuth.password must be at least ${MIN_SECRET_LENGTH} characters long: a short one is easy to guess.`);
  const given = { ...DASHBOARD_DEFAULTS, ...withoutUndefined(options) };
  for (const name of ['maxTasks', 'maxLiveStreams', 'maxLiveStreamsPerClient'] as const)
    if (!Number.isInteger(given[name]) || given[name] < 1)
      invalid(`${name} must be a whole number of at least 1 (got ${String(given[name])}).`);
  if (!Number.isFinite(given.sampleEvery) || given.sampleEvery < 100)
    invalid(`sampleEvery must be a number of milliseconds of at least 100 (got ${String(given.sampleEvery)}).`);
  if (!Array.isArray(given.allowedHosts))
    invalid('allowedHosts must be an array of host names, e.g. ["ops.example.com"].');
  parseAllowedHosts(given.allowedHosts, ALLOWED_HOSTS_OPTION);
  return {
    ...given,
    sessionTtl: atLeast(given.sessionTtl, 'sessionTtl', 1_000),
    liveStreamLifetime: atLeast(given.liveStreamLifetime, 'liveStreamLifetime', 100),
  };
}

/** How errors name the `allowedHosts` option. */
export const ALLOWED_HOSTS_OPTION = 'Dashboard: allowedHosts';

/** The shortest token or basic auth password taken. */
const MIN_SECRET_LENGTH = 8;

function atLeast(value: Duration, name: string, min: number): number {
  const ms = toMilliseconds(value, name);
  if (ms < min) invalid(`${name} must be at least ${min} ms (got ${String(value)}).`);
  return ms;
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function invalid(message: string): never {
  throw new CeleriacError('CELERIAC_INVALID_OPTION', `Dashboard: ${message}`);
}
