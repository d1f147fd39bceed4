/**
 * What holds the process open on purpose. Transports let their connections go quiet (a Redis
 * socket with no command in flight does not hold the process), so a script that forgot
 * `app.close()` still exits once its work is done; what must not end with the script holds the
 * process here: a result being awaited, a running worker, a running beat.
 */

/** Longer than any wait; the timer only has to exist. */
const FOREVER_MS = 2 ** 30;

let holders = 0;
let timer: NodeJS.Timeout | undefined;

/** Holds the process open until the returned function is called (once; later calls do nothing). */
export function keepProcessAlive(): () => void {
  holders += 1;
  timer ??= setInterval(() => undefined, FOREVER_MS);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders -= 1;
    if (holders > 0) return;
    clearInterval(timer);
    timer = undefined;
  };
}

/** Runs `work` with the process held open until it settles. */
export async function whileKeptAlive<T>(work: () => Promise<T>): Promise<T> {
  const release = keepProcessAlive();
  try {
    return await work();
  } finally {
    release();
  }
}
