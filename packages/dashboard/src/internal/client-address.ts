/** The address a request came from, as the per-client limits count it (IPv4 without its IPv6 wrapping). */
import type { IncomingMessage } from 'node:http';

/** The peer address of `req` (behind a reverse proxy: the proxy's). */
export function clientAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
