/**
 * Celery messages a Celeriac worker could not run (unreadable, an unknown task, a pickle body):
 * Celery has no dead-letter place on Redis, so they wait in a list under the app's prefix, each
 * moved there out of kombu's ack emulation in one step, for the operator to requeue or discard.
 */
import type { DeadLetter } from '@celeriac/core';
import type { Redis } from 'ioredis';
import type { HeldMessage } from './ack-emulation';
import type { CeleryKeys } from './keys';

/** What to dead-letter: a held message, or a raw one that could not be held. */
export interface DeadLetterInput {
  readonly id: string;
  readonly queue: string;
  readonly reason: string;
  readonly held?: HeldMessage | undefined;
  readonly raw?: string;
}

/** The dead-letter lists of a Celery-speaking broker. */
export class CeleryDeadLetters {
  constructor(
    private readonly client: Redis,
    private readonly keys: CeleryKeys,
  ) {}

  /** Moves a message to its queue's dead-letter list (and out of the ack emulation). */
  async add(input: DeadLetterInput): Promise<void> {
    const body = input.held ? JSON.stringify(input.held.payload) : (input.raw ?? '');
    const entry: DeadLetter = { id: input.id, queue: input.queue, body, reason: input.reason, at: Date.now() };
    const multi = this.client.multi();
    if (input.held) multi.zrem(this.keys.unackedIndex, input.held.tag).hdel(this.keys.unacked, input.held.tag);
    await multi.rpush(this.keys.dead(input.queue), JSON.stringify(entry)).exec();
  }

  /** A queue's dead letters, oldest first. */
  async list(queue: string, options: { offset?: number; limit?: number } = {}): Promise<DeadLetter[]> {
    const offset = options.offset ?? 0;
    const stop = options.limit === undefined ? -1 : offset + options.limit - 1;
    const entries = await this.client.lrange(this.keys.dead(queue), offset, stop);
    return entries.map((entry) => JSON.parse(entry) as DeadLetter);
  }

  /** Puts dead letters back into their queue (those of `ids`, or all); returns how many moved. */
  async requeue(queue: string, ids?: readonly string[]): Promise<number> {
    const chosen = await this.chosen(queue, ids);
    if (chosen.length === 0) return 0;
    const multi = this.client.multi();
    for (const { entry, letter } of chosen) {
      multi.lrem(this.keys.dead(queue), 1, entry).lpush(this.keys.queue(queue), letter.body);
    }
    await multi.exec();
    return chosen.length;
  }

  /** Deletes dead letters (those of `ids`, or all); returns how many went. */
  async discard(queue: string, ids?: readonly string[]): Promise<number> {
    const chosen = await this.chosen(queue, ids);
    if (chosen.length === 0) return 0;
    const multi = this.client.multi();
    for (const { entry } of chosen) multi.lrem(this.keys.dead(queue), 1, entry);
    await multi.exec();
    return chosen.length;
  }

  private async chosen(
    queue: string,
    ids: readonly string[] | undefined,
  ): Promise<Array<{ entry: string; letter: DeadLetter }>> {
    const entries = await this.client.lrange(this.keys.dead(queue), 0, -1);
    const wanted = ids === undefined ? undefined : new Set(ids);
    return entries
      .map((entry) => ({ entry, letter: JSON.parse(entry) as DeadLetter }))
      .filter(({ letter }) => wanted === undefined || wanted.has(letter.id));
  }
}
