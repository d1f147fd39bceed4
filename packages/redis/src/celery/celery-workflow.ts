/**
 * Celery's own workflow fields (the body's `embed`) on a Celeriac worker: when a task that Python
 * sent as a step of a chain, or with `link` callbacks, succeeds, the next step is sent with the
 * result as its first argument, in the same write as the result, as a Celery worker would. The
 * broker remembers the embed when it takes the message; the backend sends the follow-ups when it
 * stores the SUCCESS record (both run in the worker's process).
 */
import { randomUUID } from 'node:crypto';
import type { Codec, TaskRecord } from '@celeriac/core';
import { MESSAGE_VERSION, type TaskMessage } from '@celeriac/core/internal';
import { priorityStep, type CeleryKeys } from './celery-keys';
import { kwargs, toCeleryPayload } from './celery-message';
import type { CeleryEmbed, CelerySignature } from './celery-payload';

/** Celery's default queue: where a step that names no queue goes. */
const CELERY_DEFAULT_QUEUE = 'celery';

/** A message to push: the list and the payload text. */
export interface FollowUp {
  readonly list: string;
  readonly payload: string;
}

interface Remembered {
  readonly embed: CeleryEmbed;
  readonly rootId: string;
}

/** The embeds of messages taken by this process, until their task ends. */
export class CeleryWorkflow {
  private readonly embeds = new Map<string, Remembered>();

  constructor(
    private readonly codec: Codec,
    private readonly keys: CeleryKeys,
  ) {}

  /** Remembers what runs after task `id`, if anything does. */
  remember(id: string, rootId: string, embed: CeleryEmbed): void {
    if ((embed.chain?.length ?? 0) > 0 || (embed.callbacks?.length ?? 0) > 0) this.embeds.set(id, { embed, rootId });
  }

  /**
   * The messages to send now that `record` was stored: the next chain step and the callbacks, with
   * the result, on SUCCESS; nothing (and the embed is forgotten) on another ready state.
   */
  followUps(record: TaskRecord, result: () => unknown): FollowUp[] {
    const remembered = this.embeds.get(record.id);
    if (!remembered) return [];
    if (record.state !== 'SUCCESS') {
      if (record.state === 'FAILURE' || record.state === 'REVOKED') this.embeds.delete(record.id);
      return [];
    }
    this.embeds.delete(record.id);
    const value = result();
    const { chain, callbacks } = remembered.embed;
    const next: FollowUp[] = [];
    if (chain && chain.length > 0) {
      const rest = chain.slice(0, -1);
      next.push(this.followUp(chain[chain.length - 1] as CelerySignature, value, record.id, remembered.rootId, rest));
    }
    for (const callback of callbacks ?? []) next.push(this.followUp(callback, value, record.id, remembered.rootId, []));
    return next;
  }

  private followUp(
    signature: CelerySignature,
    value: unknown,
    parentId: string,
    rootId: string,
    rest: CelerySignature[],
  ): FollowUp {
    const options = signature.options ?? {};
    const queue = typeof options.queue === 'string' ? options.queue : CELERY_DEFAULT_QUEUE;
    const priority = typeof options.priority === 'number' ? options.priority : 0;
    const args = signature.immutable ? [...(signature.args ?? [])] : [value, ...(signature.args ?? [])];
    const message: TaskMessage = {
      version: MESSAGE_VERSION,
      id: typeof options.task_id === 'string' ? options.task_id : randomUUID(),
      task: signature.task,
      args: signature.kwargs && Object.keys(signature.kwargs).length > 0 ? [...args, kwargs(signature.kwargs)] : args,
      queue,
      priority,
      retries: 0,
      headers: {},
      publishedAt: Date.now(),
      parentId,
      rootId,
    };
    const embed: CeleryEmbed = { callbacks: null, errbacks: null, chain: rest.length > 0 ? rest : null, chord: null };
    return {
      list: this.keys.queue(queue, priorityStep(priority)),
      payload: JSON.stringify(toCeleryPayload(this.codec, message, embed)),
    };
  }
}
