/** HMAC-SHA256 with the app's secret: what signs messages and stored beat entries. */
import { crypto } from './lazy-crypto';

/** The hex HMAC-SHA256 of `text` under `secret`. */
export function hmac(text: string, secret: string): string {
  return crypto().createHmac('sha256', secret).update(text).digest('hex');
}

/** Compares two MACs in constant time (a timing difference would leak how much of a forgery matched). */
export function sameMac(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto().timingSafeEqual(left, right);
}
