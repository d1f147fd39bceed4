/**
 * A bound on the fetch loop's calls to the broker. Every call of a broker ends by itself (a blocking
 * wait is capped, a command fails once its retries are used), so one that has not come back within
 * the bound is stuck: the loop gives up on it and goes on, and what the call still yields later is
 * handed to `late` (the fetch loop puts such deliveries back). At stop, a call gets a short grace.
 */

/** Thrown by {@link boundedCall} for a call that did not settle within its bound. */
export class StuckCall extends Error {
  constructor(
    /** What the call was ('reserve', 'wait for work'). */
    readonly what: string,
    /** How long it had been running (ms). */
    readonly elapsed: number,
  ) {
    super(`The broker's ${what} did not come back within ${elapsed} ms`);
    this.name = 'StuckCall';
  }
}

/** How a call is bounded. */
export interface CallBound<T> {
  /** What the call is, for the error. */
  what: string;
  /** Gives up on the call after this many ms. */
  bound: number;
  /** Once aborted (stopping), the call gets at most `grace` ms more. */
  signal: AbortSignal;
  grace: number;
  /** Receives what a call given up on still resolves to. */
  late: (value: T) => void;
}

/**
 * Settles as `call` does, or rejects with {@link StuckCall} when it has not settled within the bound
 * (or within the grace once the signal aborted).
 */
export function boundedCall<T>(call: Promise<T>, options: CallBound<T>): Promise<T> {
  const started = Date.now();
  return new Promise<T>((resolve, reject) => {
    let given = false;
    const giveUp = () => {
      if (given) return;
      given = true;
      cleanup();
      reject(new StuckCall(options.what, Date.now() - started));
    };
    const timer = setTimeout(giveUp, options.bound);
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => (grace = setTimeout(giveUp, options.grace));
    const cleanup = () => {
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal.removeEventListener('abort', onAbort);
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (options.signal.aborted) onAbort();
    call.then(
      (value) => {
        if (given) return options.late(value);
        given = true;
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        if (given) return;
        given = true;
        cleanup();
        reject(error);
      },
    );
  });
}
