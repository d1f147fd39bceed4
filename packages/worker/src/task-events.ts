/**
 * The task events a worker emits. They join the settler's next batch (the write that stores records
 * and acks), so events cost no command of their own. On as the app says unless the worker was told
 * otherwise (`worker -E`), and switched at run time by `control enable-events | disable-events`.
 */
import type { CeleriacEvent, Delivery, TaskEvent, TaskEventFields } from '@celeriac/core';
import { eventPayloadOf, type TaskMessage } from '@celeriac/core/internal';
import type { WorkerApp } from './worker-app';

/** A task event type. */
type TaskEventType = TaskEvent['type'];

/** The fields of an event of type `T` beyond what every task event carries. */
export type TaskEventExtra<T extends TaskEventType> = Omit<
  Extract<TaskEvent, { type: T }>,
  keyof TaskEventFields | 'type'
>;

/** What an event names a task by: its message, or, when that did not decode, its delivery. */
export type TaskEventSource = TaskMessage | Pick<Delivery, 'id' | 'queue'>;

/** Builds and hands over task events. */
export class TaskEvents {
  private on: boolean;
  private readonly pid = process.pid;

  /** @param enabled on or off from the start (default: as the app says) */
  constructor(
    private readonly app: WorkerApp,
    private readonly hostname: string,
    private readonly push: (event: CeleriacEvent) => void,
    enabled: boolean = app.options.events.enabled,
  ) {
    this.on = enabled;
  }

  /** Whether events are emitted now; {@link TaskEvents.enable} changes it. */
  get enabled(): boolean {
    return this.on;
  }

  /** Turns events on or off from the next one. */
  enable(on: boolean): void {
    this.on = on;
  }

  /**
   * Emits one event of this worker about `source`'s task. Every event is built with the same fields
   * in the same order and the type's own fields last: objects of one shape, which a spread of
   * differently shaped inputs would not give (V8 then takes a slow path for each event).
   */
  emit<T extends TaskEventType>(type: T, source: TaskEventSource, ...extra: OptionalIfEmpty<TaskEventExtra<T>>): void {
    if (!this.enabled) return;
    const message = 'task' in source ? source : undefined;
    const event = {
      type,
      taskId: source.id,
      task: message?.task,
      queue: source.queue,
      timestamp: Date.now(),
      hostname: this.hostname,
      pid: this.pid,
      retries: message?.retries,
    };
    const fields = extra[0];
    this.push((fields === undefined ? event : Object.assign(event, fields)) as CeleriacEvent);
  }

  /** Whether events carry arguments and results (worth decoding a result for). */
  get payloads(): boolean {
    return this.enabled && this.app.options.events.payloads;
  }

  /** A value for an event, when the app asked for payloads. */
  payload(value: unknown): string | undefined {
    const { payloads, payloadLimit } = this.app.options.events;
    return this.enabled && payloads ? eventPayloadOf(this.app.codec, value, payloadLimit) : undefined;
  }
}

/** `[fields]`, or `[fields?]` when the type has no required field of its own. */
type OptionalIfEmpty<E> = object extends E ? [fields?: E] : [fields: E];
