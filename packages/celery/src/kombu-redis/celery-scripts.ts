/**
 * The Lua scripts of the Celery protocol on Redis, one per file under `scripts/` (kombu's keys, not
 * Celeriac's: they live with the code that knows them), as a script library of their own: the
 * table below names each script's keys in KEYS order, which each script declares as locals and the
 * loader checks, as for Celeriac's own scripts (see `@celeriac/redis`'s script-keys.ts).
 */
import { resolve } from 'node:path';
import { scriptLibrary } from '@celeriac/redis/internal';

/** Every script's keys: a list of names (`<command>-<count>.lua`) or a fixed head and any number more (`-n`). */
export const CELERY_SCRIPT_KEYS = {
  reserve: { head: ['unacked', 'unackedIndex'], rest: 'queue lists' },
  restore: ['unacked', 'unackedIndex', 'queue'],
  storeResults: { head: [], rest: 'result keys' },
} as const;

// The same path works from src/kombu-redis/ (tests) and dist/kombu-redis/ (built, installed): the
// package ships src/kombu-redis/scripts beside dist/.
const SCRIPT_DIR = resolve(__dirname, '..', '..', 'src', 'kombu-redis', 'scripts');

/** The Celery protocol's scripts, called with `celeryScripts.run(client, name, keys, args)`. */
export const celeryScripts = scriptLibrary({
  dir: SCRIPT_DIR,
  table: CELERY_SCRIPT_KEYS,
  commandPrefix: 'celeriac_celery_',
  tableFile: 'packages/celery/src/kombu-redis/celery-scripts.ts',
});
