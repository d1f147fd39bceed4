/**
 * Celery's own workflow fields (the body's `embed`) on a Celeriac worker: when a task that Python
 * sent as a step of a chain, or with `link` callbacks, succeeds, the next step is sent with the
 * result as its first argument, in the same write as the result, as a Celery worker would; when one
 * sent with `link_error` fails for good, its errbacks are sent with the task id. The
 * broker remembers the embed when it takes the message; the backend sends the follow-ups when it
 * stores the SUCCESS record (both run in the worker's process).
 */
import { randomUUID } from 'node:crypto';
import type { Codec, TaskRecord } from '@celeriac/core';
import { MESSAGE_VERSION, type TaskMessage } from '@celeriac/core/internal';
import { kwargs } from './kwargs';
import { toCeleryPayload } from './message';
import type { CeleryEmbed, CelerySignature } from './payload';

/** Celery's default queue: where a step that names no queue goes. */
const CELERY_DEFAULT_QUEUE = 'celery';

/**
 * A message to send: its queue and priority (the transport routes it), the payload text as kombu's
 * Redis transport stores it, and the message and embed it was made of (for another transport).
 */
export interface FollowUp {
  readonly queue: string;
  readonly priority: number;
  readonly payload: string;
  readonly message: TaskMessage;
  readonly embed: CeleryEmbed;
}

/**
 * Sends follow-ups on a broker that is not kombu's Redis (RabbitMQ), once the records that led to
 * them are stored; without one, they go in the same MULTI as the records.
 */
export type FollowUpSender = (followUps: readonly FollowUp[]) => Promise<void>;

interface Remembered {
  readonly embed: CeleryEmbed;
  readonly rootId: string;
  /** The Celery group of a chord's header member, and the member's place in it. */
  readonly group?: { readonly id: string; readonly index: number | null };
}

/** A chord header member that ended: what Celery's `on_chord_part_return` needs. */
export interface ChordPart {
  readonly groupId: string;
  /** The member's place in the header (its score in the `.j` sorted set); null for `+inf`. */
  readonly index: number | null;
  readonly record: TaskRecord;
  readonly body: CelerySignature;
  readonly rootId: string;
}

const ENDED = new Set(['SUCCESS', 'FAILURE', 'REVOKED']);

/** The embeds of messages taken by this process, until their task ends. */
export class CeleryWorkflow {
  private readonly embeds = new Map<string, Remembered>();

  constructor(private readonly codec: Codec) {}

  /** Remembers what runs after task `id`, if anything does (`group` from the message's headers). */
  remember(id: string, rootId: string, embed: CeleryEmbed, group?: { group: unknown; group_index: unknown }): void {
    const inChord = embed.chord !== null && typeof group?.group === 'string';
    const follows = [embed.chain, embed.callbacks, embed.errbacks].some((list) => (list?.length ?? 0) > 0);
    if (!inChord && !follows) return;
    const index = typeof group?.group_index === 'number' ? group.group_index : null;
    this.embeds.set(id, { embed, rootId, group: inChord ? { id: group.group as string, index } : undefined });
  }

  /** The chord part of `record` when it ended and its task is a member of a chord's header. */
  chordPart(record: TaskRecord): ChordPart | undefined {
    const remembered = this.embeds.get(record.id);
    const body = remembered?.embed.chord;
    if (!remembered?.group || !body || !ENDED.has(record.state)) return undefined;
    return { groupId: remembered.group.id, index: remembered.group.index, record, body, rootId: remembered.rootId };
  }

  /** The message that runs a chord's body with the header's results, as its first argument. */
  chordBody(part: ChordPart, results: unknown[]): FollowUp {
    return this.followUp(part.body, results, part.record.id, part.rootId, []);
  }

  /**
   * The messages to send now that `record` was stored: the next chain step and the callbacks, with
   * the result, on SUCCESS; on FAILURE the errbacks (`link_error`), with the task id as their one
   * argument, as a Celery worker sends an errback it does not call in its own process (one whose
   * task takes a single argument); nothing on another state. The embed is forgotten once the task ended.
   */
  followUps(record: TaskRecord, result: () => unknown): FollowUp[] {
    const remembered = this.embeds.get(record.id);
    if (!remembered) return [];
    if (record.state === 'FAILURE') {
      this.embeds.delete(record.id);
      return (remembered.embed.errbacks ?? []).map((errback) =>
        this.followUp(errback, record.id, record.id, remembered.rootId, []),
      );
    }
    if (record.state !== 'SUCCESS') {
      if (record.state === 'REVOKED') this.embeds.delete(record.id);
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
    return { queue, priority, payload: JSON.stringify(toCeleryPayload(this.codec, message, embed)), message, embed };
  }
}
