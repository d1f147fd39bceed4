/** What a worker needs from its app; `CeleriacCore` provides it. */
import type { Broker, CanvasNode, Closeable, Codec, Duration, LaunchOptions, ResolvedAppOptions, ResultBackend, TaskRegistry } from '@celeriac/core';

/** The parts of an app a worker uses. */
export interface WorkerApp {
  readonly options: ResolvedAppOptions;
  readonly codec: Codec;
  readonly registry: TaskRegistry;
  readonly broker: Broker;
  readonly backend: ResultBackend;
  /** The sender's notification channel named in an encoded message, if it decodes. */
  replyToOf(body: string): string | undefined;
  /** Publishes the first tasks of a workflow node (the steps after a finished one). */
  launchCanvas(node: CanvasNode, parentArgs: readonly unknown[], options?: LaunchOptions): Promise<void>;
  /** How long a task's result is kept (ms): the call's option, else the task's, else the app's. */
  resultTtlOf(task: string, call: Duration | undefined): number;
  /** Registers the worker so that closing the app closes it. */
  track(closeable: Closeable): () => void;
}
