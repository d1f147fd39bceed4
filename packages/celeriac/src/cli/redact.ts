/** Broker URLs for logs, without their passwords. */
import { redactUrl } from '@celeriac/redis/internal';

/** A broker URL without its password, for logs. */
export function redact(broker: unknown): string {
  return typeof broker === 'string' ? redactUrl(broker) : 'a broker object';
}
