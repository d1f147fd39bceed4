/** What a worker needs from its app: the app's runtime (`runtimeOf(app)`) provides it. */
import type {
  Broker,
  CanvasNode,
  CeleriacEvent,
  Codec,
  Duration,
  ResolvedAppOptions,
  ResultBackend,
} from '@celeriac/core';
import type { Closeable, LaunchOptions, TaskMessage, TaskRegistry } from '@celeriac/core/internal';

/** The parts of an app a worker uses. */
export interface WorkerApp {
  readonly options: ResolvedAppOptions;
  readonly codec: Codec;
  readonly registry: TaskRegistry;
  readonly broker: Broker;
  readonly backend: ResultBackend;
  /**
   * Decodes a message with the app's secret; throws when it does not decode or is forged, or (given
   * the delivery's id) when a signed message is a copy under another id or past `signatureMaxAge`.
   */
  decode(body: string, deliveryId?: string): TaskMessage;
  /** The decoded message, or undefined when it does not decode. */
  decodeOrUndefined(body: string): TaskMessage | undefined;
  /** Publishes the first tasks of a workflow node (the steps after a finished one). */
  launchCanvas(node: CanvasNode, parentArgs: readonly unknown[], options?: LaunchOptions): Promise<void>;
  /** Encodes a message with the app's secret and size limit. */
  encode(message: TaskMessage): string;
  /** How long a task's result is kept (ms): the call's option, else the task's, else the app's. */
  resultTtlOf(task: string, call: Duration | undefined): number;
  /** Appends events to the app's event log (never throws; a lost event fails nothing). */
  emitEvents(events: readonly CeleriacEvent[]): Promise<void>;
  /** Registers the worker so that closing the app closes it. */
  track(closeable: Closeable): () => void;
}
