/**
 * Script calls while a slot migrates (resharding). A script's keys share one slot; while the slot's
 * keys sit partly on the old master and partly on the new one, Redis answers TRYAGAIN and runs
 * nothing. ioredis retries that (and follows ASK and MOVED) a bounded number of times, then gives up,
 * which a slot holding a large key (a long queue's message hash) can outlast. A call Redis refused
 * this way was not run, so it is sent again here, for a while longer, instead of failing.
 */

/** How long a refused script call is sent again after ioredis gave up on it. */
const PATIENCE_MS = 15_000;
/** The pause between attempts. */
const RETRY_MS = 100;

/** True for the error of a call a cluster refused because its slot was moving, without running it. */
export function isSlotMoving(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  // A bare reply, or ioredis's "Too many Cluster redirections. Last error: ReplyError: TRYAGAIN ...".
  return /^(?:Too many Cluster redirections\. Last error: ReplyError: )?(?:TRYAGAIN|ASK|MOVED)\b/.test(message);
}

/**
 * Runs `call` now (synchronously, so it joins a corked write as before) and again while it fails with
 * {@link isSlotMoving}, for up to {@link PATIENCE_MS} after the first such failure; then fails with the
 * last error.
 */
export function retryWhileSlotMoves<T>(call: () => Promise<T>): Promise<T> {
  let deadline: number | undefined;
  const attempt = (first: Promise<T>): Promise<T> =>
    first.catch(async (error: unknown) => {
      // Counted from the first refusal that reaches here: ioredis has already retried for a while.
      deadline ??= Date.now() + PATIENCE_MS;
      if (!isSlotMoving(error) || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      return attempt(call());
    });
  return attempt(call());
}
