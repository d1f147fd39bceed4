/**
 * One `Broker` made of two halves: a {@link MessageTransport} that holds the messages (RabbitMQ) and
 * a shared-state broker beside it (Redis) that holds revocations, worker records and the control
 * channel. See docs/architecture.md ("Messages apart from shared state").
 */
import type { Broker, Delivery, Failure, Revocation } from './broker';
import { SHARED_STATE_PARTS, type BrokerCapabilities, type SharedStatePart } from './capabilities';
import type { MessageTransport } from './transport-split';

/**
 * What the joined broker can do. Messages-side flags (priorities, delivery counts, delays, the fast
 * paths) are the transport's. Flags enforced when a message is leased or stored (flow control,
 * unique tasks, debounce, caller-chosen ids, paused queues) and the failed-task registry (written
 * in one step with the ack) need both halves to act as one: they are false unless the transport
 * itself declares them. Flags served by the store alone (control channel, worker records) are the
 * store's.
 */
export function splitCapabilities(transport: BrokerCapabilities, store: BrokerCapabilities): BrokerCapabilities {
  const kept: SharedStatePart[] = ['revocations'];
  if (store.remoteControl) kept.push('control-replies');
  if (store.workerRecords) kept.push('worker-records');
  return {
    ...transport,
    transport: `${transport.transport} with shared state on ${store.transport}`,
    remoteControl: store.remoteControl,
    workerRecords: store.workerRecords,
    sharedState: SHARED_STATE_PARTS.filter((part) => kept.includes(part) || transport.sharedState.includes(part)),
  };
}

/**
 * Joins `transport` (messages) and `store` (shared state) into one broker. Closing it closes both.
 * Holds the two as members and forwards; optional members exist only where a flag promises them.
 */
export function createSplitBroker(transport: MessageTransport, store: Broker): Broker {
  const capabilities = splitCapabilities(transport.capabilities, store.capabilities);
  const broker: Broker = {
    capabilities,
    publish: (envelopes) => transport.publish(envelopes),
    reserve: (queues, count) => transport.reserve(queues, count),
    waitForWork: (queues, signal) => transport.waitForWork(queues, signal),
    ack: (deliveries: readonly Delivery[], _failures?: ReadonlyMap<string, Failure>) => transport.ack(deliveries),
    requeue: (delivery, options) => transport.requeue(delivery, options),
    requeueLost: (delivery, reason) => transport.requeueLost(delivery, reason),
    deadLetter: (delivery, reason) => transport.deadLetter(delivery, reason),
    extendLeases: (deliveries) => transport.extendLeases(deliveries),
    recoverLapsed: (queues) => transport.recoverLapsed(queues),
    listDead: (queue, options) => transport.listDead(queue, options),
    requeueDead: (queue, ids) => transport.requeueDead(queue, ids),
    discardDead: (queue, ids) => transport.discardDead(queue, ids),
    stats: (queue) => transport.stats(queue),
    purge: (queue) => transport.purge(queue),
    // The message stays in the transport: the store remembers the revocation and tells the workers,
    // and the worker that leases the message refuses it (capability `revokeRemoves: false`).
    revoke: async (revocation: Revocation) => {
      await store.revoke(revocation);
      return { removed: false };
    },
    listRevoked: () => store.listRevoked(),
    onRevoke: (listener) => store.onRevoke(listener),
    close: async () => {
      await Promise.allSettled([transport.close(), store.close()]);
    },
  };
  if (capabilities.waitAndReserve && transport.waitAndReserve)
    broker.waitAndReserve = transport.waitAndReserve.bind(transport);
  if (capabilities.drainedHint && transport.drained) broker.drained = transport.drained.bind(transport);
  if (capabilities.reconnect && transport.reconnect) broker.reconnect = transport.reconnect.bind(transport);
  const withReach = transport as Pick<Broker, 'unreachable'>;
  if (withReach.unreachable) broker.unreachable = () => withReach.unreachable?.();
  if (capabilities.remoteControl && store.broadcast && store.onControl && store.listQueues) {
    broker.broadcast = store.broadcast.bind(store);
    broker.onControl = store.onControl.bind(store);
    // The transport knows the queues messages went to, when it can list them.
    broker.listQueues = transport.listQueues ? transport.listQueues.bind(transport) : store.listQueues.bind(store);
  }
  if (capabilities.workerRecords && store.heartbeat && store.forgetWorker && store.listWorkers) {
    broker.heartbeat = store.heartbeat.bind(store);
    broker.forgetWorker = store.forgetWorker.bind(store);
    broker.listWorkers = store.listWorkers.bind(store);
  }
  return broker;
}
