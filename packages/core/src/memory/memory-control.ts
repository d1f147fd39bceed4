/** The memory broker's control channel: a request goes to every handler in this process. */
import { collectReplies } from '../control/collect-replies';
import type { BroadcastOptions, ControlHandler, ControlReply, ControlRequest } from '../control/control-types';

/** The control handlers of one memory broker. */
export class MemoryControl {
  private readonly handlers = new Set<ControlHandler>();

  /** Sends `request` to every handler and collects their replies (up to the limit, until the timeout). */
  broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]> {
    return collectReplies(
      [...this.handlers].map((handler) => handler(request)),
      options,
    );
  }

  /** Adds a handler; returns the function that removes it. */
  listen(handler: ControlHandler): () => Promise<void> {
    this.handlers.add(handler);
    return async () => void this.handlers.delete(handler);
  }

  /** Drops every handler (the broker is closing). */
  close(): void {
    this.handlers.clear();
  }
}
