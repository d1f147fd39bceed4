/** The typed errors RabbitMQ's refusals become, each saying what to do. */
import { BrokerUnavailableError, CeleriacError } from '@celeriac/core';

/** What amqplib's errors carry besides a message. */
interface AmqpFailure {
  readonly code?: number | string;
  readonly message?: string;
}

/**
 * A declare that RabbitMQ refused with 406 PRECONDITION_FAILED: the queue exists with other
 * arguments (its type, its priorities, its TTL). Names the queue and the argument.
 */
export function queueMismatch(queue: string, cause: unknown): CeleriacError {
  const text = (cause as AmqpFailure).message ?? String(cause);
  const argument = /inequivalent arg '([^']+)'/.exec(text)?.[1] ?? 'an argument';
  return new CeleriacError(
    'CELERIAC_QUEUE_MISMATCH',
    `RabbitMQ queue ${queue} exists with another ${argument} than Celeriac declares (${text}). Delete the ` +
      `queue (rabbitmqctl delete_queue ${queue}, after draining it) or set the transport's queueType to match it.`,
    { cause },
  );
}

/** True when `error` is RabbitMQ's 406 PRECONDITION_FAILED. */
export function isPreconditionFailed(error: unknown): boolean {
  return (error as AmqpFailure).code === 406;
}

/** A publish RabbitMQ returned (no queue took it) or nacked (it could not store it). */
export function publishRefused(queue: string, why: 'returned' | 'nacked'): CeleriacError {
  const detail =
    why === 'returned'
      ? 'was returned unroutable: no queue is bound for it (was the queue deleted while the app ran?)'
      : 'was nacked: RabbitMQ could not store it (a full disk, a quorum queue without a majority)';
  return new CeleriacError(
    'CELERIAC_PUBLISH_REFUSED',
    `A message for queue ${queue} ${detail}. Nothing was stored; send it again once RabbitMQ is healthy.`,
  );
}

/** The connection could not be opened: the URL, the credentials or the vhost are wrong, or RabbitMQ is down. */
export function connectFailed(where: string, cause: unknown): BrokerUnavailableError {
  const text = (cause as AmqpFailure).message ?? String(cause);
  let hint = 'Check that RabbitMQ runs and the URL names its host and port.';
  if (/ACCESS.REFUSED|403/.test(text)) hint = 'Check the user name and password in the broker URL.';
  else if (/vhost|NOT.ALLOWED|530/.test(text)) {
    hint = 'Check the vhost in the broker URL: it must exist and the user needs permissions on it.';
  }
  return new BrokerUnavailableError(`Could not connect to RabbitMQ at ${where}: ${text}. ${hint}`, { cause });
}

/** The transport was closed: nothing more can be sent or leased through it. */
export function transportClosed(): CeleriacError {
  return new CeleriacError('CELERIAC_CLOSED', 'The RabbitMQ transport was closed; open a new app to go on.');
}
