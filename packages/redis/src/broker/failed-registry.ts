/**
 * The Redis side of the failed-task registry: acks that keep failed tasks (one script per queue,
 * atomic with the ack), and reading and removing entries. Layout in keys.ts.
 */
import type { BrokerSettings, Delivery, FailedTask, Failure, RemoteError } from '@celeriac/core';
import type { RedisClient } from '../connection/redis-client';
import type { KeySpace } from '../keys';
import { scriptKeys } from '../scripting/script-keys';
import { runScript } from '../scripting/scripts';

/** The failed-task registry of one app on Redis. */
export class RedisFailedRegistry {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: KeySpace,
    private readonly settings: BrokerSettings,
  ) {}

  /**
   * Writes the entries of leased deliveries of one queue that failed for good, before their FAILURE
   * records are stored (the ack comes after). Nothing is written when the registry is off.
   */
  async keep(queue: string, deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure>): Promise<void> {
    if ((this.settings.failedTtl ?? 0) <= 0) return;
    await runScript(this.client, 'keepFailed', this.registryKeys('keepFailed', queue), [
      Date.now(),
      ...entryArgs(deliveries, failures),
    ]);
  }

  /** Acks deliveries of one queue that failed for good, keeping them in the registry. */
  async ack(queue: string, deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure>): Promise<void> {
    await runScript(this.client, 'ackFailed', this.registryKeys('ackFailed', queue), [
      Date.now(),
      this.settings.failedTtl ?? 0,
      this.settings.failedLimit ?? 10_000,
      ...entryArgs(deliveries, failures),
    ]);
  }

  async list(queue: string, offset: number, limit: number): Promise<FailedTask[]> {
    const { failed } = this.keys.failed(queue);
    const oldest = Date.now() - (this.settings.failedTtl ?? 0);
    const ids = await this.client.zrevrangebyscore(failed, '+inf', `(${oldest}`, 'LIMIT', offset, limit);
    return (await this.get(queue, ids)).filter((task): task is FailedTask => task !== undefined);
  }

  async count(queue: string): Promise<number> {
    const oldest = Date.now() - (this.settings.failedTtl ?? 0);
    return this.client.zcount(this.keys.failed(queue).failed, `(${oldest}`, '+inf');
  }

  async get(queue: string, ids: readonly string[]): Promise<Array<FailedTask | undefined>> {
    if (ids.length === 0) return [];
    const { failed, failedInfo } = this.keys.failed(queue);
    const [scores, fields] = await Promise.all([
      this.client.zmscore(failed, ...ids),
      this.client.hmget(failedInfo, ...ids.flatMap((id) => [`body:${id}`, `info:${id}`])),
    ]);
    const oldest = Date.now() - (this.settings.failedTtl ?? 0);
    return ids.map((id, index) => {
      const at = scores[index];
      if (at === null || at === undefined || Number(at) <= oldest) return undefined;
      return failedTask(id, queue, Number(at), fields[index * 2] ?? '', fields[index * 2 + 1] ?? '');
    });
  }

  async discard(queue: string, ids?: readonly string[]): Promise<number> {
    if (ids !== undefined && ids.length === 0) return 0;
    const { failed, failedInfo } = this.keys.failed(queue);
    return runScript<number>(
      this.client,
      'discardFailed',
      scriptKeys('discardFailed', { failed, failedInfo }),
      ids ?? [],
    );
  }

  private registryKeys(name: 'keepFailed' | 'ackFailed', queue: string): string[] {
    return scriptKeys(name, { ...this.keys.queue(queue), ...this.keys.failed(queue) });
  }
}

/** The script arguments of entries: triples of id, delivery number, failure JSON. */
function entryArgs(deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure>): Array<string | number> {
  return deliveries.flatMap((delivery) => [
    delivery.id,
    delivery.deliveries,
    JSON.stringify(failures.get(delivery.id)),
  ]);
}

/** An entry as stored; info written there by something else is shown as it is, not thrown on. */
function failedTask(id: string, queue: string, at: number, body: string, text: string): FailedTask {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const info = typeof parsed === 'object' && parsed !== null ? (parsed as Partial<Failure>) : {};
  const error: RemoteError =
    typeof info.error === 'object' && info.error !== null
      ? info.error
      : { name: 'Error', message: 'unreadable failed-task record' };
  return {
    id,
    queue,
    body,
    at,
    task: typeof info.task === 'string' ? info.task : '',
    error,
    attempts: typeof info.attempts === 'number' ? info.attempts : 0,
  };
}
