/**
 * Who may use the dashboard, checked on every route (page, API, live feed, metrics): HTTP basic
 * auth, or a bearer token (header, or `?token=` once, which opens a session whose id the browser
 * keeps in an HTTP-only same-site cookie). Wrong credentials are throttled per client. Actions are
 * also CSRF-checked: a POST must carry the page's CSRF token in a header, which another site's page
 * cannot read (its origin is checked apart, in host-guard.ts).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ResolvedDashboardOptions } from '../options';
import { clientAddress } from './client-address';
import { HttpError } from './http';
import { LoginThrottle } from './login-throttle';
import { Sessions } from './sessions';

/** The cookie that holds a browser's session id once it gave the token in the URL. */
const SESSION_COOKIE = 'celeriac_dashboard_session';
/** The header that carries the CSRF token on actions. */
export const CSRF_HEADER = 'x-celeriac-csrf';

/** What the auth check decided. */
export type AuthOutcome = 'allowed' | 'answered';

/** Checks credentials and CSRF tokens for one dashboard. */
export class Guard {
  /** The CSRF token of this dashboard, written into the page it serves. */
  readonly csrfToken = randomBytes(24).toString('base64url');
  /** The browsers' sessions (token auth). */
  readonly sessions: Sessions;
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly options: ResolvedDashboardOptions,
    now: () => number = Date.now,
  ) {
    this.sessions = new Sessions(options.sessionTtl, now);
    this.throttle = new LoginThrottle(now);
  }

  /** True when some credential is required. */
  get protects(): boolean {
    return this.options.basicAuth !== undefined || this.options.token !== undefined;
  }

  /**
   * Lets the request through, or answers it: 401 without valid credentials, 429 while the client is
   * locked out after wrong ones, or a redirect that trades a `?token=` in the URL for a session.
   */
  check(req: IncomingMessage, res: ServerResponse, url: URL): AuthOutcome {
    const { basicAuth, token } = this.options;
    if (!basicAuth && token === undefined) return 'allowed';
    const session = cookieOf(req, SESSION_COOKIE);
    if (token !== undefined && session !== undefined && this.sessions.valid(session)) return 'allowed';
    const client = clientAddress(req);
    const locked = this.throttle.lockedFor(client);
    if (locked > 0) {
      res.setHeader('Retry-After', String(Math.ceil(locked / 1000)));
      throw new HttpError(
        429,
        'CELERIAC_TOO_MANY_ATTEMPTS',
        `Too many wrong credentials from this address; try again in ${Math.ceil(locked / 1000)} s.`,
      );
    }
    const authorization = req.headers.authorization ?? '';
    if (basicAuth) {
      if (authorization.startsWith('Basic ')) {
        const given = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
        if (same(given, `${basicAuth.user}:${basicAuth.password}`)) return this.allowed(client);
        this.throttle.failed(client);
      }
      res.setHeader('WWW-Authenticate', 'Basic realm="Celeriac dashboard", charset="UTF-8"');
      throw new HttpError(401, 'CELERIAC_UNAUTHORIZED', 'Sign in with the dashboard user and password.');
    }
    const expected = token as string;
    const fromUrl = url.searchParams.get('token');
    if (fromUrl !== null) {
      if (!same(fromUrl, expected)) this.throttle.failed(client);
      else if (req.method === 'GET') {
        this.throttle.succeeded(client);
        url.searchParams.delete('token');
        res.setHeader('Set-Cookie', sessionCookie(req, this.sessions.open(), this.sessions.ttl));
        res.writeHead(303, { Location: relativeSelf(url) });
        res.end();
        return 'answered';
      }
    }
    if (authorization.startsWith('Bearer ')) {
      if (same(authorization.slice(7), expected)) return this.allowed(client);
      this.throttle.failed(client);
    }
    throw new HttpError(
      401,
      'CELERIAC_UNAUTHORIZED',
      session === undefined
        ? 'Open the dashboard with ?token=<token> once, or send Authorization: Bearer <token>.'
        : 'The session ended (it expired, or the dashboard restarted): open the dashboard with ?token=<token> again.',
    );
  }

  /** Ends the browser's session (sign-out) and tells it to drop the cookie. */
  endSession(req: IncomingMessage, res: ServerResponse): void {
    const session = cookieOf(req, SESSION_COOKIE);
    if (session !== undefined) this.sessions.revoke(session);
    res.setHeader('Set-Cookie', sessionCookie(req, '', 0));
  }

  /** Refuses an action without the page's CSRF token. */
  checkAction(req: IncomingMessage): void {
    const given = req.headers[CSRF_HEADER];
    if (typeof given !== 'string' || !same(given, this.csrfToken))
      throw new HttpError(
        403,
        'CELERIAC_CSRF',
        `Actions need the page's CSRF token in the ${CSRF_HEADER} header; reload the dashboard page.`,
      );
  }

  private allowed(client: string): AuthOutcome {
    this.throttle.succeeded(client);
    return 'allowed';
  }
}

/**
 * The session cookie: HTTP-only, same-site, expiring with the session, sent only under the path the
 * dashboard is mounted at, and only over HTTPS when the browser came by HTTPS.
 */
function sessionCookie(req: IncomingMessage, id: string, ttl: number): string {
  const secure = isHttps(req) ? '; Secure' : '';
  const maxAge = Math.floor(ttl / 1000);
  return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=${mountPath(req)}; Max-Age=${maxAge}${secure}`;
}

/** Whether the browser reached the dashboard over HTTPS (itself, or a proxy that says so). */
function isHttps(req: IncomingMessage): boolean {
  if ((req.socket as Partial<TLSSocket>).encrypted === true) return true;
  const proto = req.headers['x-forwarded-proto'];
  return typeof proto === 'string' && proto.split(',')[0]?.trim() === 'https';
}

/**
 * Where the dashboard is mounted, as the browser sees it: the prefix a framework took off (it keeps
 * `originalUrl`), or the one a reverse proxy names in `X-Forwarded-Prefix`, else `/`.
 */
function mountPath(req: IncomingMessage): string {
  const original = (req as IncomingMessage & { originalUrl?: string }).originalUrl;
  const path = (target: string) => target.split('?')[0] ?? '';
  let prefix = '';
  if (original !== undefined) {
    const [full, own] = [path(original), path(req.url ?? '/')];
    if (full.endsWith(own)) prefix = full.slice(0, full.length - own.length);
  } else {
    const forwarded = req.headers['x-forwarded-prefix'];
    if (typeof forwarded === 'string') prefix = forwarded.trim();
  }
  prefix = prefix.replace(/\/+$/, '');
  return /^\/[\w\-.~%/]*$/.test(prefix) ? prefix : '/';
}

/** Compares secrets in constant time (through digests, so lengths leak nothing either). */
function same(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The request's own path, relative (so a reverse proxy's path prefix is kept), without `?token=`. */
function relativeSelf(url: URL): string {
  const last = url.pathname.split('/').pop() ?? '';
  const query = url.searchParams.toString();
  return `./${last}${query === '' ? '' : `?${query}`}`;
}
