/** What the RabbitMQ transport declares it can do, for each queue type. */
import type { BrokerCapabilities } from '@celeriac/core';
import type { AmqpQueueType } from './options';

/** How error messages name the RabbitMQ transport. */
const AMQP = 'amqp://, amqps://';

/**
 * Quorum queues (the default): exact delivery counts (`x-delivery-count`), no priorities on 3.10.
 * Everything enforced when a message is leased (flow control, unique tasks, paused queues) needs
 * one atomic step across messages and shared state, which RabbitMQ cannot take with Redis: lacking.
 */
export const AMQP_CAPABILITIES = {
  transport: AMQP,
  flowControl: false,
  unique: false,
  debounce: false,
  uniqueIds: false,
  revokeRemoves: false,
  delays: 'broker',
  transactionalPublish: false,
  deliveryCounts: 'exact',
  priorities: 'none',
  pause: false,
  failedRegistry: false,
  remoteControl: false,
  workerRecords: false,
  waitAndReserve: false,
  drainedHint: false,
  reconnect: false,
  durability: ['async'],
  sharedState: [],
} as const satisfies BrokerCapabilities;

/** Classic queues: only "redelivered" is known; priorities with `maxPriority`. */
export function amqpCapabilities(queueType: AmqpQueueType, maxPriority: number | undefined): BrokerCapabilities {
  if (queueType === 'quorum') return AMQP_CAPABILITIES;
  return {
    ...AMQP_CAPABILITIES,
    deliveryCounts: 'redelivered',
    priorities: maxPriority === undefined ? 'none' : 'higher-first',
  };
}
