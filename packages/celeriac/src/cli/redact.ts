/** Broker URLs for logs, without their passwords. */

/** A broker URL without its password, for logs. */
export function redact(broker: unknown): string {
  if (typeof broker !== 'string') return 'a broker object';
  try {
    const url = new URL(broker);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return broker;
  }
}
