/**
 * Bodies for a transport that stores messages in a format of its own. The broker cases publish
 * opaque bodies (`body of a`) and compare what comes back; a broker that must read each body (the
 * Celery broker turns it into a Celery message) gets a {@link BodyFormat} that wraps the cases' text
 * in a body it reads, and the cases see the text again in what the broker gives back. A transport
 * that stores bodies as given passes none, and its broker is tested as it is.
 */
import type { Broker } from '../../broker';
import type { Envelope } from '../../message';

/** How the cases' text travels in a transport's own message bodies. */
export interface BodyFormat {
  /** The body to publish for `envelope`, whose `body` is the cases' text (`body of a`). */
  encode(envelope: Envelope): string;
  /** The cases' text in a body the broker gave back (a delivery's, a dead letter's, a purged message's). */
  decode(body: string): string;
}

/** `broker` with the cases' text encoded on the way in and decoded on the way out; the rest as it is. */
export function withBodyFormat(broker: Broker, format: BodyFormat): Broker {
  const decoded = <T extends { readonly body: string }>(items: readonly T[]): T[] =>
    items.map((item) => ({ ...item, body: format.decode(item.body) }));
  const overrides: Partial<Broker> = {
    publish: (envelopes) =>
      broker.publish(envelopes.map((envelope) => ({ ...envelope, body: format.encode(envelope) }))),
    reserve: async (queues, count) => decoded(await broker.reserve(queues, count)),
    requeue: (delivery, options = {}) => {
      if (options.body === undefined) return broker.requeue(delivery, options);
      const { id, queue } = delivery;
      const body = format.encode({ id, queue, priority: 0, idempotent: false, body: options.body });
      return broker.requeue(delivery, { ...options, body });
    },
    recoverLapsed: async (queues) => {
      const report = await broker.recoverLapsed(queues);
      return { ...report, dead: decoded(report.dead) };
    },
    listDead: async (queue, options) => decoded(await broker.listDead(queue, options)),
    purge: async (queue) => decoded(await broker.purge(queue)),
    revoke: async (revocation) => {
      const outcome = await broker.revoke(revocation);
      return outcome.body === undefined ? outcome : { ...outcome, body: format.decode(outcome.body) };
    },
  };
  const waitAndReserve = broker.waitAndReserve?.bind(broker);
  if (waitAndReserve) {
    overrides.waitAndReserve = async (queues, count, signal) => decoded(await waitAndReserve(queues, count, signal));
  }
  return new Proxy(broker, {
    get(target, key) {
      if (typeof key === 'string' && key in overrides) return overrides[key as keyof Broker];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
