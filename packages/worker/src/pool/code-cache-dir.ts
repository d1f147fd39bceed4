/**
 * Where pool children keep their code cache (code-cache.ts): `CELERIAC_CODE_CACHE` when set (empty
 * or `off` turns the cache off), else a directory of this user's in the system's temporary
 * directory. A cache holds code the children run, so a directory that another user could write to
 * is never used: without a safe one, children simply compile.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CODE_CACHE_ENV, isPrivateDirectory } from './code-cache';

let chosen: string | undefined | null = null;

/** The cache directory to hand to children, or undefined for none; decided once per process. */
export function codeCacheDir(): string | undefined {
  if (chosen === null) chosen = chooseCodeCacheDir(process.env[CODE_CACHE_ENV], tmpdir(), process.getuid?.());
  return chosen;
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
