/**
 * Where pool children keep their code cache (code-cache.ts): `CELERIAC_CODE_CACHE` when set (empty
 * or `off` turns the cache off), else a directory of this user's in the system's temporary
 * directory. A cache holds code the children run, so a directory that another user could write to
 * is never used: without a safe one, children simply compile. The worker also sweeps out the
 * temporary files of entries whose writers were killed.
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CODE_CACHE_ENV, isPrivateDirectory, isTemporaryEntryFile } from './code-cache';

let chosen: string | undefined | null = null;

/** The cache directory to hand to children, or undefined for none; decided once per process. */
export function codeCacheDir(): string | undefined {
  if (chosen === null) {
    chosen = chooseCodeCacheDir(process.env[CODE_CACHE_ENV], tmpdir(), process.getuid?.());
    if (chosen !== undefined) sweepStaleTemporaries(chosen, Date.now());
  }
  return chosen;
}

/** How old a temporary file must be before it is taken for left behind (a write takes milliseconds). */
const STALE_TEMPORARY_MS = 60_000;

/**
 * Removes temporary entry files that children killed while they wrote them left behind (a fork
 * child writes its entries as it exits, and a worker's close kills its warm children), so they do
 * not pile up. Run once per worker, when it starts its first pool child; files still being written
 * are too young to be touched.
 */
export function sweepStaleTemporaries(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!isTemporaryEntryFile(name)) continue;
    const file = join(dir, name);
    try {
      if (now - statSync(file).mtimeMs >= STALE_TEMPORARY_MS) unlinkSync(file);
    } catch {
      // Gone already (another worker swept it), or not ours to remove: either way, not this worker's concern.
    }
  }
}

/**
 * The cache directory for a configured value, a temporary directory and a user id (exported for
 * the tests): the configured one, or `<temporary>/celeriac-code-cache-<uid>`, made if missing and
 * used only while it is this user's own and closed to everyone else.
 */
export function chooseCodeCacheDir(configured: string | undefined, temporary: string, uid: number | undefined): string | undefined {
  if (configured !== undefined) return configured === '' || configured === 'off' ? undefined : configured;
  const dir = join(temporary, `celeriac-code-cache-${uid}`);
  return isPrivateDirectory(dir, uid) ? dir : undefined;
}
