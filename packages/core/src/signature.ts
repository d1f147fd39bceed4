/**
 * Signatures: a task call written down as data (name, arguments, options), to be sent later or
 * composed into chains, groups and chords. `add.s(4)` is partial: a parent's result is put before
 * its arguments; `add.si(2, 2)` is immutable and ignores the parent's result.
 */
import type { AsyncResult } from './async-result';
import type { CanvasSender, Composable } from './canvas/composable';
import { toTaskNode } from './canvas/to-node';
import type { CanvasNode } from './canvas/nodes';
import type { ApplyOptions } from './options';

/** A signature as plain, serializable data. */
export interface SignatureData {
  /** The task name. */
  task: string;
  args: unknown[];
  options: ApplyOptions;
  /** True for `si()`: the parent's result is not passed in. */
  immutable: boolean;
}

/** Sends a task by name and starts workflows; the app implements it. */
export interface SignatureSender extends CanvasSender {
  sendTask<R>(name: string, args: readonly unknown[], options?: ApplyOptions): AsyncResult<R>;
}

/** A task call written down, typed by the task's result `R`. */
export class Signature<R = unknown> implements Composable<R, AsyncResult<R>> {
  declare readonly '~types'?: { value: R; handle: AsyncResult<R> };

  constructor(
    /** The app that sends it. */
    readonly sender: SignatureSender,
    /** The signature's data; send it anywhere, rebuild it with `app.signature(data)`. */
    readonly data: Readonly<SignatureData>,
  ) {}

  /** The task name. */
  get task(): string {
    return this.data.task;
  }

  /** A copy with more call options (queue, priority, countdown, link, linkError, ...). */
  set(options: ApplyOptions): Signature<R> {
    return new Signature<R>(this.sender, { ...this.data, options: { ...this.data.options, ...options } });
  }

  /**
   * Sends the task. `parentArgs` (a parent's result) go before the signature's own arguments, unless
   * the signature is immutable.
   */
  applyAsync(parentArgs: readonly unknown[] = [], options: ApplyOptions = {}): AsyncResult<R> {
    const args = this.data.immutable ? this.data.args : [...parentArgs, ...this.data.args];
    return this.sender.sendTask<R>(this.data.task, args, { ...this.data.options, ...options });
  }

  /** Sends the task with extra leading arguments. */
  delay(...parentArgs: unknown[]): AsyncResult<R> {
    return this.applyAsync(parentArgs);
  }

  /** The call as a workflow node. */
  toNode(): CanvasNode {
    return toTaskNode(this.data);
  }

  /** The plain data, so `JSON.stringify(signature)` and message encoding see data only. */
  toJSON(): SignatureData {
    return { ...this.data, args: [...this.data.args], options: { ...this.data.options } };
  }
}
