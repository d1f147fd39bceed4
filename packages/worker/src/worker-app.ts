/** What a worker needs from its app; `CeleriacCore` provides it. */
import type { Broker, Closeable, Codec, ResolvedAppOptions, ResultBackend, TaskRegistry } from '@celeriac/core';

/** The parts of an app a worker uses. */
export interface WorkerApp {
  readonly options: ResolvedAppOptions;
  readonly codec: Codec;
  readonly registry: TaskRegistry;
  readonly broker: Broker;
  readonly backend: ResultBackend;
  /** The sender's notification channel named in an encoded message, if it decodes. */
  replyToOf(body: string): string | undefined;
  /** Registers the worker so that closing the app closes it. */
  track(closeable: Closeable): () => void;
}
