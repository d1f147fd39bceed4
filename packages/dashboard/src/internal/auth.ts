/**
 * Who may use the dashboard, checked on every route (page, API, live feed, metrics): HTTP basic
 * auth, or a bearer token (header, or `?token=` once, then an HTTP-only same-site cookie). Actions
 * are also CSRF-checked: a POST must carry the page's CSRF token in a header, which another site's
 * page cannot read, and a browser that says the request is cross-site is refused outright.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResolvedDashboardOptions } from '../options';
import { HttpError } from './http';

/** The cookie that holds the token once a browser gave it in the URL. */
const TOKEN_COOKIE = 'celeriac_dashboard_token';
/** The header that carries the CSRF token on actions. */
export const CSRF_HEADER = 'x-celeriac-csrf';

/** What the auth check decided. */
export type AuthOutcome = 'allowed' | 'answered';

/** Checks credentials and CSRF tokens for one dashboard. */
export class Guard {
  /** The CSRF token of this dashboard, written into the page it serves. */
  readonly csrfToken = randomBytes(24).toString('base64url');

  constructor(private readonly options: ResolvedDashboardOptions) {}

  /** True when some credential is required. */
  get protects(): boolean {
    return this.options.basicAuth !== undefined || this.options.token !== undefined;
  }

  /**
   * Lets the request through, or answers it: 401 without valid credentials, or a redirect that
   * moves a `?token=` from the URL into a cookie.
   */
  check(req: IncomingMessage, res: ServerResponse, url: URL): AuthOutcome {
    const { basicAuth, token } = this.options;
    const authorization = req.headers.authorization ?? '';
    if (basicAuth) {
      const given = authorization.startsWith('Basic ')
        ? Buffer.from(authorization.slice(6), 'base64').toString('utf8')
        : '';
      if (same(given, `${basicAuth.user}:${basicAuth.password}`)) return 'allowed';
      res.setHeader('WWW-Authenticate', 'Basic realm="Celeriac dashboard", charset="UTF-8"');
      throw new HttpError(401, 'CELERIAC_UNAUTHORIZED', 'Sign in with the dashboard user and password.');
    }
    if (token !== undefined) {
      const fromUrl = url.searchParams.get('token');
      if (fromUrl !== null && same(fromUrl, token) && req.method === 'GET') {
        url.searchParams.delete('token');
        res.setHeader('Set-Cookie', `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
        res.writeHead(303, { Location: relativeSelf(url) });
        res.end();
        return 'answered';
      }
      const bearer = authorization.startsWith('Bearer ') ? authorization.slice(7) : undefined;
      const cookie = cookieOf(req, TOKEN_COOKIE);
      if ((bearer !== undefined && same(bearer, token)) || (cookie !== undefined && same(cookie, token)))
        return 'allowed';
      throw new HttpError(
        401,
        'CELERIAC_UNAUTHORIZED',
        'Open the dashboard with ?token=<token> once, or send Authorization: Bearer <token>.',
      );
    }
    return 'allowed';
  }

  /** Refuses an action that another site could have sent (CSRF). */
  checkAction(req: IncomingMessage): void {
    if (req.headers['sec-fetch-site'] === 'cross-site')
      throw new HttpError(403, 'CELERIAC_CSRF', 'Actions are refused from other sites.');
    const given = req.headers[CSRF_HEADER];
    if (typeof given !== 'string' || !same(given, this.csrfToken))
      throw new HttpError(
        403,
        'CELERIAC_CSRF',
        `Actions need the page's CSRF token in the ${CSRF_HEADER} header; reload the dashboard page.`,
      );
  }
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
