/** The URL of a request as the router reads it: a path that starts with one `/`, or a 400. */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http';

/**
 * The request's URL. A target that is not a path (`*`, `http://...`) or starts with `//` (which a
 * URL parser takes for a host, as it does `/\`) is refused: it names nothing the dashboard serves.
 */
export function requestUrl(req: IncomingMessage): URL {
  // A router that strips its mount prefix from `/ops?x=1` may leave `?x=1`.
  const target = req.url === undefined || req.url === '' ? '/' : req.url.startsWith('?') ? `/${req.url}` : req.url;
  if (/^\/(?![/\\])/.test(target)) {
    try {
      return new URL(target, 'http://dashboard.invalid');
    } catch {
      // Falls through to the 400.
    }
  }
  throw new HttpError(400, 'CELERIAC_BAD_REQUEST', 'The request path must start with a single "/".');
}
