/**
 * Routes one request of the dashboard: its `Host` first, then its path, then authentication (every
 * route), then the page, its files, the live feed (server-sent events), the read API, the actions
 * (POST, origin- and CSRF-checked, refused when read-only) and `/metrics`. Paths are taken relative
 * to where the handler is mounted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DashboardApp } from '../app';
import type { RequestHandler, ResolvedDashboardOptions } from '../options';
import { actionRoutes, type ActionRoute } from './action-routes';
import type { Guard } from './auth';
import type { HostGuard } from './host-guard';
import { HttpError, readJsonBody, secureHeaders, sendError, sendJson } from './http';
import type { LiveFeed } from './live-feed';
import type { LiveStreams } from './live-streams';
import { servePage } from './page';
import { readRoutes, type ReadRoute } from './read-routes';
import { requestUrl } from './request-url';
import { openLiveStream } from './sse';
import { StaticFiles } from './static-files';

/** A matched route and the `:id` segment it captured. */
interface Match<R> {
  readonly route: R;
  readonly id?: string;
}

/** What a dashboard's router works with, made once per dashboard. */
export interface RouterParts {
  readonly feed: LiveFeed;
  readonly options: ResolvedDashboardOptions;
  readonly streams: LiveStreams;
  readonly hosts: HostGuard;
  readonly guard: Guard;
}

/** The path of the sign-out action (token auth): it ends the browser's session. */
const SIGN_OUT = 'api/session/end';

/** Builds the request handler of one dashboard. */
export function createRouter(app: DashboardApp, parts: RouterParts): RequestHandler {
  const { feed, options, streams, hosts, guard } = parts;
  const files = new StaticFiles();
  const reads = readRoutes(app, feed);
  const actions = actionRoutes(app);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    secureHeaders(res);
    hosts.checkHost(req);
    const url = requestUrl(req);
    if (guard.check(req, res, url) === 'answered') return;
    const path = url.pathname.replace(/^\/+/, '');
    const method = req.method ?? 'GET';
    if (method === 'POST') return act(path, req, res);
    if (method !== 'GET' && method !== 'HEAD')
      throw new HttpError(405, 'CELERIAC_BAD_REQUEST', `${method} is not served; use GET, or POST for actions.`);
    if (path === '' || path === 'index.html') {
      if (redirectToSlash(req, res)) return;
      return servePage(req, res, { title: options.title, csrfToken: guard.csrfToken, readOnly: options.readOnly });
    }
    if (files.has(path)) return files.serve(path, req, res);
    if (path === 'metrics') {
      if (!options.metrics) throw new HttpError(404, 'CELERIAC_NOT_FOUND', 'No metrics handler is mounted here.');
      return options.metrics(req, res);
    }
    if (path === 'api/live') return openLiveStream(req, res, feed, streams);
    const read = match(reads, path);
    if (!read) throw new HttpError(404, 'CELERIAC_NOT_FOUND', `Nothing is served at /${path}.`);
    sendJson(
      res,
      200,
      await read.route({ ...(read.id === undefined ? {} : { id: read.id }), query: url.searchParams }),
    );
  }

  async function act(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    hosts.checkOrigin(req);
    if (path === SIGN_OUT) {
      guard.checkAction(req);
      guard.endSession(req, res);
      return sendJson(res, 200, { signedOut: true });
    }
    const action = match(actions, path);
    if (!action) throw new HttpError(404, 'CELERIAC_NOT_FOUND', `No action is served at /${path}.`);
    if (options.readOnly)
      throw new HttpError(403, 'CELERIAC_READ_ONLY', 'This dashboard is read-only: it shows, and changes nothing.');
    guard.checkAction(req);
    const body = await readJsonBody(req);
    const params = { ...(action.id === undefined ? {} : { id: action.id }), body };
    sendJson(res, 200, await action.route(params));
  }

  return (req, res) => {
    route(req, res).catch((error: unknown) => sendError(res, error));
  };
}

/** The route whose pattern matches `path` (`:id` matches one segment, URL-decoded). */
function match<R extends ReadRoute | ActionRoute>(routes: Record<string, R>, path: string): Match<R> | undefined {
  const segments = path.split('/');
  for (const [pattern, route] of Object.entries(routes)) {
    const parts = pattern.split('/');
    if (parts.length !== segments.length) continue;
    let id: string | undefined;
    const fits = parts.every((part, index) => {
      const segment = segments[index] as string;
      if (part !== ':id') return part === segment;
      id = decodeSegment(segment);
      return id !== '';
    });
    if (fits) return id === undefined ? { route } : { route, id };
  }
  return undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'CELERIAC_BAD_REQUEST', `The path segment "${segment}" is not valid URL encoding.`);
  }
}

/**
 * Mounted at `/ops` in Express, a request for `/ops` reaches the handler as `/`: the page's
 * relative links would then point above it, so send the browser to `/ops/` first.
 */
function redirectToSlash(req: IncomingMessage, res: ServerResponse): boolean {
  const original = (req as IncomingMessage & { originalUrl?: string }).originalUrl;
  if (original === undefined) return false;
  const [pathname = '', query] = original.split('?');
  if (pathname.endsWith('/') || pathname.endsWith('/index.html')) return false;
  res.writeHead(308, { Location: `${pathname}/${query === undefined ? '' : `?${query}`}` });
  res.end();
  return true;
}
