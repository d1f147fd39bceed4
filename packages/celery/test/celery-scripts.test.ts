/**
 * The Celery protocol's Lua scripts load as a script library of their own: every file has its entry
 * in the key table and declares those keys, and a call is checked against the table.
 */
import type { Redis } from 'ioredis';
import { CELERY_SCRIPT_KEYS, celeryScripts } from '../src/kombu-redis/celery-scripts';

describe('the Celery scripts', () => {
  it('loads every shipped script, each checked against its entry, and no entry lacks its file', () => {
    const names = celeryScripts.load().map((script) => script.name);
    expect(new Set(names)).toEqual(new Set(Object.keys(CELERY_SCRIPT_KEYS)));
  });

  it('defines its commands under a prefix of its own, and refuses a call with too few keys', () => {
    const defined: string[] = [];
    const client = { defineCommand: (name: string) => defined.push(name) } as unknown as Redis;
    celeryScripts.define(client);
    expect(defined.sort()).toEqual([
      'celeriac_celery_reserve',
      'celeriac_celery_restore',
      'celeriac_celery_storeResults',
    ]);
    expect(() => celeryScripts.run(client, 'restore', ['unacked', 'unacked_index'], [])).toThrow(
      'Script restore takes 3 keys (unacked, unackedIndex, queue), not 2',
    );
  });
});
