/**
 * What a Celery-speaking broker keeps that Celery has no Redis place for: revocations, worker
 * heartbeats and control requests among Celeriac workers, under the app's own prefix, through an
 * inner {@link RedisBroker}. Python workers see none of it but revocations: a revoke is also sent
 * as Celery's pidbox `revoke` command, and one Python sends reaches Celeriac workers (protocol/pidbox.ts).
 * Celery's `inspect` and `control` commands sent from Python reach Celeriac workers too, and their
 * answers go back to Python (protocol/remote-control.ts). The broker holds one and hands these calls to it.
 */
import { randomUUID } from 'node:crypto';
import {
  CeleriacError,
  type BroadcastOptions,
  type ControlHandler,
  type ControlReply,
  type ControlRequest,
  type Revocation,
  type WorkerInfo,
} from '@celeriac/core';
import type { RedisBroker, RedisConnection } from '@celeriac/redis';
import { publish, unavailable } from '@celeriac/redis/internal';
import type { Redis } from 'ioredis';
import { celeryReplyValue, type CeleryControlCall } from '../protocol/remote-control';
import type { CeleryKeys } from './keys';
import { sendMailboxReply } from './mailbox-reply';
import { controlCallInMessage, revocationsInMessage, revokeMessage } from './pidbox-message';

function pauseUnsupported(queue: string): CeleriacError {
  return new CeleriacError(
    'CELERIAC_INVALID_STATE',
    `Queue ${queue} cannot be paused with protocol 'celery': Python workers would go on taking from it. Stop ` +
      `consuming it instead (celery control cancel_consumer, or restart the workers without it).`,
  );
}

/** Celeriac's own channels, kept beside the Celery queues. */
export class CeleriacChannels {
  /**
   * @param inner - Celeriac's Redis broker under the app's prefix (closed with these channels).
   * @param pidbox - the connection and channel of Celery's `celery.pidbox` fanout exchange, and
   * kombu's keys (where replies to Python's commands go).
   */
  constructor(
    private readonly inner: RedisBroker,
    private readonly pidbox: {
      readonly connection: RedisConnection;
      readonly channel: string;
      /** The connection's client: kombu's keys are on one node. */
      readonly client: Redis;
      readonly keys: CeleryKeys;
    },
  ) {}

  /**
   * Remembered for Celeriac workers (also those started later), and sent to the Celery workers
   * listening now: a Python worker holds a revoked id in memory only, as Celery does.
   */
  async revoke(revocation: Revocation): Promise<{ removed: boolean; body?: string }> {
    const outcome = await this.inner.revoke(revocation);
    const { connection, channel } = this.pidbox;
    await publish(connection.client, channel, revokeMessage(revocation)).catch((error: unknown) => {
      throw unavailable(error, `send Celery's revoke command on channel ${channel}`, connection);
    });
    return outcome;
  }

  listRevoked(): Promise<Revocation[]> {
    return this.inner.listRevoked();
  }

  /**
   * Celeriac's revocations and Celery's revoke commands (heard while subscribed, as a Python worker
   * hears them). A command heard is also remembered with Celeriac's own revocations, so Celeriac
   * workers started later, or restarted, honour it too (a Python worker forgets it on restart). A
   * command a Celeriac app sent is heard on Celeriac's channel only: once, with its grace period.
   */
  async onRevoke(listener: (revocation: Revocation) => void): Promise<() => Promise<void>> {
    const stopOwn = await this.inner.onRevoke(listener);
    const stopCelery = await this.pidbox.connection.subscriber
      .subscribe(this.pidbox.channel, (text) => {
        for (const revocation of revocationsInMessage(text, { fromPython: true })) {
          listener(revocation);
          // Every listening worker writes the same entry: idempotent. Not kept if Redis is away now.
          this.inner.revoke(revocation).catch(() => undefined);
        }
      })
      .catch(async (error: unknown) => {
        await stopOwn();
        throw error;
      });
    return async () => {
      await Promise.all([stopOwn(), stopCelery()]);
    };
  }

  heartbeat(info: WorkerInfo, ttl: number): Promise<void> {
    return this.inner.heartbeat(info, ttl);
  }

  forgetWorker(hostname: string): Promise<void> {
    return this.inner.forgetWorker(hostname);
  }

  listWorkers(): Promise<WorkerInfo[]> {
    return this.inner.listWorkers();
  }

  broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]> {
    return this.inner.broadcast(request, options);
  }

  /**
   * Requests from Celeriac (`app.control`, `celeriac inspect`) and Celery's commands from Python
   * (`celery inspect ping`, ...): both reach `handler`, and each answer goes back its own way.
   */
  async onControl(handler: ControlHandler): Promise<() => Promise<void>> {
    const stopOwn = await this.inner.onControl(handler);
    const stopCelery = await this.pidbox.connection.subscriber
      .subscribe(this.pidbox.channel, (text) => {
        const call = controlCallInMessage(text, randomUUID);
        if (call) void this.answerCelery(call, handler);
      })
      .catch(async (error: unknown) => {
        await stopOwn();
        throw error;
      });
    return async () => {
      await Promise.all([stopOwn(), stopCelery()]);
    };
  }

  /** Runs one of Celery's commands and sends the answer where its sender collects replies. */
  private async answerCelery(call: CeleryControlCall, handler: ControlHandler): Promise<void> {
    const reply = await handler(call.request).catch(() => undefined);
    if (!reply || !call.replyTo) return;
    const { client, keys } = this.pidbox;
    // A reply that cannot be sent is as one that came late: the sender stops waiting on its own.
    await sendMailboxReply(client, keys, call.replyTo, {
      [reply.hostname]: celeryReplyValue(call, reply),
    }).catch(() => undefined);
  }

  /** Celery's Redis transport has no paused state that Python workers would honour. */
  pauseQueue(queue: string): Promise<void> {
    return Promise.reject(pauseUnsupported(queue));
  }

  resumeQueue(queue: string): Promise<void> {
    return Promise.reject(pauseUnsupported(queue));
  }

  async pausedQueues(): Promise<string[]> {
    return [];
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
