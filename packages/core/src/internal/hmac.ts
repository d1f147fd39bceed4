/** HMAC-SHA256 with the app's secret: what signs messages and stored beat entries. */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The hex HMAC-SHA256 of `text` under `secret`. */
export function hmac(text: string, secret: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** Compares two MACs in constant time (a timing difference would leak how much of a forgery matched). */
export function sameMac(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
