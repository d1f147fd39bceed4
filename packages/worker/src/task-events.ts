/**
 * The task events a worker emits. They join the settler's next batch (the write that stores records
 * and acks), so events cost no command of their own; off when the app turned events off.
 */
import type { CeleriacEvent, Delivery, TaskEvent } from '@celeriac/core';
import { eventPayloadOf, type TaskMessage } from '@celeriac/core/internal';
import type { WorkerApp } from './worker-app';

/** A task event without what the worker adds (when and where). */
export type TaskEventInput = TaskEvent extends infer E
  ? E extends TaskEvent
    ? Omit<E, 'timestamp' | 'hostname' | 'pid'>
    : never
  : never;

/** Builds and hands over task events. */
export class TaskEvents {
  readonly enabled: boolean;

  constructor(
    private readonly app: WorkerApp,
    private readonly hostname: string,
    private readonly push: (event: CeleriacEvent) => void,
  ) {
    this.enabled = app.options.events.enabled;
  }

  /** Emits one event of this worker. */
  emit(event: TaskEventInput): void {
    if (this.enabled) this.push({ ...event, timestamp: Date.now(), hostname: this.hostname, pid: process.pid });
  }

  /** The fields naming a task, from its message or, when it did not decode, its delivery. */
  of(
    message: TaskMessage | undefined,
    delivery?: Pick<Delivery, 'id' | 'queue'>,
  ): { taskId: string; task?: string; queue: string; retries?: number } {
    if (message) return { taskId: message.id, task: message.task, queue: message.queue, retries: message.retries };
    return { taskId: delivery?.id ?? '', queue: delivery?.queue ?? '' };
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
