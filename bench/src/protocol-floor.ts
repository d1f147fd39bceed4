/**
 * Celeriac's round trip with its library layers taken away: the same Redis commands, in the same
 * order and the same writes (the publish script; the wake-up wait with the reserve script queued
 * behind it; the record, its notice and the done notice in one write; the ack after the record is
 * stored), sent by the least code that can send them. It runs in the benchmark's rotation as a
 * reference: the gap between it and Celeriac is what Celeriac's own code costs, and the gap between
 * it and the other libraries is what its Redis protocol costs.
 *
 * It mirrors the protocol by hand, so a change to the worker's or the sender's writes must be made
 * here too; the scripts and key names are Celeriac's own (from `@celeriac/redis`).
 */
import { randomUUID } from 'node:crypto';
import { RedisConnection } from '@celeriac/redis';
import { corked, KeySpace, queueKeyList, runScript } from '@celeriac/redis/internal';
import { timed } from './subject';

/** A running floor: `once` sends one job and resolves with its round trip in ms. */
export interface ProtocolFloor {
  once(): Promise<number>;
  stop(): Promise<void>;
}

const QUEUE = 'default';
const VISIBILITY_MS = 30_000;
const RESULT_TTL_MS = 86_400_000;

/** Starts the floor's worker loop in this process under `prefix`. */
export async function startProtocolFloor(url: string, prefix: string): Promise<ProtocolFloor> {
  const keySpace = new KeySpace(prefix);
  const queueKeys = queueKeyList(keySpace.queue(QUEUE));
  const marker = keySpace.queue(QUEUE).marker;
  const clientId = randomUUID();
  // The connection's own blocking client and subscriber, as Celeriac's worker and sender use them.
  const connection = new RedisConnection(url).retain();
  const { client } = connection;
  const blocking = connection.acquireBlocking();
  const waiting = blocking.client;
  const waiters = new Map<string, () => void>();
  await connection.subscriber.subscribe(keySpace.replyChannel(clientId), (message) => {
    for (const [id] of JSON.parse(message) as Array<[string, string]>) {
      waiters.get(id)?.();
      waiters.delete(id);
    }
  });
  await Promise.all([client.ping(), blocking.ready()]);

  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      // As the worker does: the next wait starts on the event loop's next turn.
      await nextTurn();
      const [woken, reserved] = corked(
        waiting,
        () =>
          [
            waiting.bzpopmin(marker, 20),
            runScript<string[]>(waiting, 'reserve', queueKeys, ['', 1, VISIBILITY_MS]),
          ] as const,
      );
      // Both fail when stop() disconnects the blocking client.
      woken.catch(() => undefined);
      const reply = await reserved.catch(() => undefined);
      if (!reply || reply.length < 4) continue;
      const [, id = '', body = '', deliveries = ''] = reply;
      const message = JSON.parse(body) as { task: string; args: { json: unknown[] }; replyTo: string };
      const record = JSON.stringify({
        json: { id, state: 'SUCCESS', date: Date.now(), task: message.task, retries: 0, result: message.args.json[0] },
      });
      const stored = corked(client, () => [
        client.set(keySpace.result(id), record, 'PX', RESULT_TTL_MS),
        client.publish(keySpace.replyChannel(message.replyTo), JSON.stringify([[id, record]])),
        client.publish(keySpace.doneChannel, JSON.stringify([id])),
      ]);
      void Promise.all(stored)
        .then(nextTurn)
        .then(() => runScript(client, 'ack', queueKeys, [id, deliveries]))
        .catch(() => undefined);
    }
  })();

  return {
    once: () =>
      timed(() => {
        const id = randomUUID();
        const body = JSON.stringify({
          version: 1,
          id,
          task: 'bench.noop',
          args: { json: [0] },
          queue: QUEUE,
          priority: 0,
          retries: 0,
          headers: {},
          publishedAt: Date.now(),
          replyTo: clientId,
        });
        const done = new Promise<void>((resolve) => waiters.set(id, resolve));
        return Promise.all([runScript(client, 'publish', queueKeys, [Date.now(), 1, id, 0, 0, '0', body, '']), done]);
      }),
    async stop() {
      stopped = true;
      blocking.disconnect();
      await loop;
      connection.releaseBlocking(blocking);
      await connection.release();
    },
  };
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
