/**
 * The two halves of a deployment's transport: moving messages, and the state its workers share.
 * Today's brokers (memory, Redis, Celery on Redis) implement both as one `Broker`; a broker that
 * holds messages only (RabbitMQ) implements {@link MessageTransport} and pairs with a store (Redis,
 * later PostgreSQL) that implements {@link SharedStateStore} and the `ResultBackend`. Which half of
 * the shared state a broker keeps itself is `BrokerCapabilities.sharedState`. See
 * docs/architecture.md ("Messages apart from shared state").
 */
import type { Broker } from './broker';

/**
 * What a message transport must do: publish (ready or delayed), lease (reserve, wait, extend,
 * recover lapsed leases or their equivalent: unacked messages redelivered when a consumer dies),
 * settle (ack, requeue, dead-letter), and count and purge its queues.
 */
export type MessageTransport = Pick<
  Broker,
  | 'capabilities'
  | 'publish'
  | 'reserve'
  | 'waitForWork'
  | 'ack'
  | 'requeue'
  | 'requeueLost'
  | 'deadLetter'
  | 'extendLeases'
  | 'recoverLapsed'
  | 'listDead'
  | 'requeueDead'
  | 'discardDead'
  | 'stats'
  | 'purge'
  | 'close'
> &
  Partial<Pick<Broker, 'waitAndReserve' | 'drained' | 'reconnect' | 'listQueues'>>;

/**
 * The state a deployment's workers share apart from the messages and results: revocations,
 * flow-control counters and run-time rates, the failed-task registry, worker records, the control
 * channel and its replies, paused queues. (Results, chord counters and the event log are the
 * `ResultBackend`'s; beat state is the `BeatStore`'s.)
 */
export type SharedStateStore = Pick<Broker, 'listRevoked' | 'onRevoke'> &
  Partial<
    Pick<
      Broker,
      | 'setRateLimit'
      | 'rateLimits'
      | 'keepFailed'
      | 'listFailed'
      | 'getFailed'
      | 'discardFailed'
      | 'countFailed'
      | 'queueNames'
      | 'heartbeat'
      | 'forgetWorker'
      | 'listWorkers'
      | 'broadcast'
      | 'onControl'
      | 'listQueues'
      | 'pauseQueue'
      | 'resumeQueue'
      | 'pausedQueues'
    >
  >;
