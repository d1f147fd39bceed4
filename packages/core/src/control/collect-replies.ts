/** Gathers replies as they come, until a timeout or a number of them; late ones are dropped. */
import type { BroadcastOptions, ControlReply } from './control-types';

/** Resolves with the replies among `pending` that arrived within `options.timeout` (or the first `limit`). */
export function collectReplies(
  pending: ReadonlyArray<Promise<ControlReply | undefined>>,
  options: BroadcastOptions,
): Promise<ControlReply[]> {
  const replies: ControlReply[] = [];
  return new Promise((resolve) => {
    let open = pending.length;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(replies);
    };
    const timer = setTimeout(finish, options.timeout);
    if (open === 0) return finish();
    for (const promise of pending) {
      promise
        .then(
          (reply) => {
            if (reply && !done) replies.push(reply);
            if (options.limit !== undefined && replies.length >= options.limit) finish();
          },
          () => undefined,
        )
        .finally(() => {
          open -= 1;
          // In one process every handler answered: no need to wait out the timeout.
          if (open === 0) finish();
        });
    }
  });
}
