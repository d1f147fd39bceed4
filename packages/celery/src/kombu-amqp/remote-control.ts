/**
 * Celery's remote control on RabbitMQ, as kombu's Mailbox does it there: commands are broadcast on
 * the `celery.pidbox` fanout exchange (transient, not durable), and a command that wants answers
 * names a reply exchange (`reply.celery.pidbox`, direct) and the routing key of its sender's queue.
 * A Celeriac worker hears Python's commands (`celery inspect ping`, `app.control.revoke`) through a
 * queue of its own bound to the exchange, and answers as a Celery worker does; a Celeriac revoke is
 * also broadcast there for the Python workers listening. Celeriac's own control requests and
 * revocations go on through the store (Redis), as for Celeriac's own RabbitMQ transport.
 */
import { randomUUID } from 'node:crypto';
import type { AmqpFanout, AmqpMessage, ExchangeShape } from '@celeriac/amqp';
import type { Broker, ControlHandler } from '@celeriac/core';
import { PIDBOX_EXCHANGE, revocationsIn, revokeCommand } from '../protocol/pidbox';
import { celeryReplyValue, controlCallIn, type CeleryControlCall } from '../protocol/remote-control';

/** The exchange kombu's Mailbox broadcasts on. */
export const PIDBOX: ExchangeShape = { name: PIDBOX_EXCHANGE, type: 'fanout', durable: false };

/** The header that marks a command a Celeriac app sent (Celery ignores headers it does not know). */
const SENT_BY_CELERIAC = 'x_celeriac';

/**
 * `broker` (an amqp:// app's, its shared state in the store) with Celery's remote control on the
 * RabbitMQ that `pidbox` listens on: revocations and control requests from Python reach the workers,
 * and a Celeriac revoke reaches Python's.
 */
export function withCeleryRemoteControl(broker: Broker, pidbox: AmqpFanout): Broker {
  const controlled: Broker = {
    ...broker,
    revoke: async (revocation) => {
      const outcome = await broker.revoke(revocation);
      // `expires: 0`: no deadline (kombu drops a command past one; clocks of two machines may differ).
      await pidbox.publish({
        content: Buffer.from(JSON.stringify(revokeCommand(revocation))),
        headers: { clock: 0, expires: 0, [SENT_BY_CELERIAC]: true },
      });
      return outcome;
    },
    onRevoke: async (listener) => {
      const stopOwn = await broker.onRevoke(listener);
      const stopCelery = await pidbox
        .listen((message) => {
          // A Celeriac revoke reached Celeriac's workers through the store already, with its grace period.
          if (message.properties.headers?.[SENT_BY_CELERIAC] === true) return;
          for (const revocation of revocationsIn(bodyOf(message))) {
            listener(revocation);
            // Remembered for Celeriac workers started later (a Python worker forgets it on restart).
            broker.revoke(revocation).catch(() => undefined);
          }
        })
        .catch(async (error: unknown) => {
          await stopOwn();
          throw error;
        });
      return async () => {
        await Promise.all([stopOwn(), stopCelery()]);
      };
    },
    close: async () => {
      await Promise.allSettled([broker.close(), pidbox.close()]);
    },
  };
  const { onControl } = broker;
  if (onControl) {
    controlled.onControl = async (handler) => {
      const stopOwn = await onControl(handler);
      const stopCelery = await pidbox
        .listen((message) => {
          const call = controlCallIn(bodyOf(message), randomUUID);
          if (call) void answer(pidbox, call, handler);
        })
        .catch(async (error: unknown) => {
          await stopOwn();
          throw error;
        });
      return async () => {
        await Promise.all([stopOwn(), stopCelery()]);
      };
    };
  }
  return controlled;
}

/** Runs one of Celery's commands and sends the answer where its sender collects replies. */
async function answer(pidbox: AmqpFanout, call: CeleryControlCall, handler: ControlHandler): Promise<void> {
  const reply = await handler(call.request).catch(() => undefined);
  if (!reply || !call.replyTo) return;
  const { exchange, routingKey, ticket } = call.replyTo;
  const body = { [reply.hostname]: celeryReplyValue(call, reply) };
  // A reply that cannot be sent is as one that came late: the sender stops waiting on its own.
  await pidbox
    .publish(
      { content: Buffer.from(JSON.stringify(body)), headers: { ticket, clock: 0 } },
      { name: exchange, type: 'direct', durable: false },
      routingKey,
    )
    .catch(() => undefined);
}

/** A command's JSON body, or undefined for one that is not JSON. */
function bodyOf(message: AmqpMessage): unknown {
  try {
    return JSON.parse(message.content.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
