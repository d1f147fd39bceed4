/** Waiting for a set of runs to end, within a time limit that a forced stop cuts short. */
import { clearLongTimeout, setLongTimeout, type LongTimeout } from '@celeriac/core/internal';

/** Resolves true when all promises settle within `ms` (and before `forced` aborts), false otherwise. */
export async function waitAll(promises: Array<Promise<void>>, ms: number, forced: AbortSignal): Promise<boolean> {
  let timer: LongTimeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setLongTimeout(() => resolve(false), ms);
    forced.addEventListener('abort', () => resolve(false), { once: true });
  });
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true), timeout]);
  } finally {
    clearLongTimeout(timer);
  }
}
