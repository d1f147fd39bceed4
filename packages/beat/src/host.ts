/** What the beat package needs from the app: its runtime (`runtimeOf(app)`) provides it; beat knows no transport. */
import type { ApplyOptions, AsyncResult, Codec } from '@celeriac/core';
import type { Closeable } from '@celeriac/core/internal';

/** The app as beat sees it. */
export interface BeatHost {
  /** Serializes the arguments of runtime entries. */
  readonly codec: Codec;
  /** The app's `secret`: runtime entries are signed with it, and unsigned ones are then not fired. */
  readonly options: { readonly secret: string | undefined };
  /** Sends one firing. */
  sendTask(name: string, args: readonly unknown[], options?: ApplyOptions): AsyncResult<unknown>;
  /** Builds a message without sending it: throws what a firing would throw (bad options, arguments). */
  buildMessage(name: string, args: readonly unknown[], options: ApplyOptions): unknown;
  /** A task's result by id: a new leader asks whether a claimed slot's task left a record. */
  result(id: string): Pick<AsyncResult<unknown>, 'state'>;
  /** Registers something to close with the app. */
  track(closeable: Closeable): () => void;
}
