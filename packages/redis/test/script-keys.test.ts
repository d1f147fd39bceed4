/**
 * The script key table and the Lua agree: the shipped scripts load (each declares the keys the table
 * lists, in order, and takes as many as its file name says); a script that strays from its entry, and
 * a call with another number of keys, fail loudly; and every script's keys share one hash slot.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeySpace, QUEUE_KEYS, queueKeyList } from '../src/keys';
import { keySlot } from '../src/connection/key-slot';
import type { RedisClient } from '../src/connection/redis-client';
import {
  isVariadic,
  SCRIPT_KEYS,
  scriptKeys,
  type FixedKeyScript,
  type ScriptName,
} from '../src/scripting/script-keys';
import { loadScripts, runScript } from '../src/scripting/scripts';

describe('script keys', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'celeriac-scripts-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A script folder of its own, with the include `pair` (two keys). */
  const scriptDir = () => {
    const dir = mkdtempSync(join(root, 'dir-'));
    mkdirSync(join(dir, 'includes'));
    writeFileSync(join(dir, 'includes', 'pair.lua'), 'local first = KEYS[1]\nlocal second = KEYS[2]\n');
    return dir;
  };

  /** Loads `lua` as `file` alone in a folder, against a table of that one script. */
  const load = (file: string, lua: string, keys: readonly string[] | { head: string[]; rest: string }) => {
    const dir = scriptDir();
    writeFileSync(join(dir, file), lua);
    return () => loadScripts(dir, { [file.replace(/-(\d+|n)\.lua$/, '')]: keys });
  };

  it('loads every shipped script, each checked against its entry, and no script lacks its file', () => {
    const names = loadScripts().map((script) => script.name);
    expect(new Set(names)).toEqual(new Set(Object.keys(SCRIPT_KEYS)));
  });

  it('accepts keys declared in order, in an include or the script itself', () => {
    expect(
      load('both-3.lua', "-- #include pair\nlocal third = KEYS[3]\nreturn redis.call('GET', first)\n", [
        'first',
        'second',
        'third',
      ]),
    ).not.toThrow();
    expect(
      load('any-n.lua', '-- #include pair\nfor i = 3, #KEYS do redis.call("DEL", KEYS[i]) end\n', {
        head: ['first', 'second'],
        rest: 'more',
      }),
    ).not.toThrow();
  });

  it('refuses a file name whose count is not the number of keys in the table', () => {
    expect(load('pair-3.lua', '-- #include pair\n', ['first', 'second'])).toThrow(
      /pair-3\.lua: its name says 3 keys, but it takes 2/,
    );
    expect(load('pair-n.lua', '-- #include pair\n', ['first', 'second'])).toThrow(/takes 2 keys, not any number/);
  });

  it('refuses a script that uses a key past its count, or by number', () => {
    expect(load('pair-2.lua', "-- #include pair\nreturn redis.call('GET', KEYS[3])\n", ['first', 'second'])).toThrow(
      /indexes KEYS\[3\] by number/,
    );
    expect(load('pair-2.lua', "-- #include pair\nreturn redis.call('GET', KEYS[1])\n", ['first', 'second'])).toThrow(
      /indexes KEYS\[1\] by number/,
    );
    expect(load('pair-2.lua', '-- #include pair\nreturn #KEYS\n', ['first', 'second'])).toThrow(
      /uses KEYS past its declarations/,
    );
    // A comment may name KEYS[n]: only code counts.
    expect(
      load('pair-2.lua', '-- KEYS[1] first; KEYS[2] second\n-- #include pair\nreturn 1\n', ['first', 'second']),
    ).not.toThrow();
  });

  it('refuses declarations in another order, under other names, or missing', () => {
    expect(load('pair-2.lua', '-- #include pair\n', ['second', 'first'])).toThrow(
      /declares first = KEYS\[1\], second = KEYS\[2\]; expected second = KEYS\[1\], first = KEYS\[2\]/,
    );
    expect(load('one-1.lua', 'local only = KEYS[2]\n', ['only'])).toThrow(/expected only = KEYS\[1\]/);
    expect(load('one-1.lua', 'return 1\n', ['only'])).toThrow(/declares no keys/);
  });

  it('refuses a local, loop variable or parameter that hides a key', () => {
    expect(load('pair-2.lua', '-- #include pair\nlocal out, second = {}, {}\n', ['first', 'second'])).toThrow(
      /binds 'second' again/,
    );
    expect(load('pair-2.lua', '-- #include pair\nfor _, first in ipairs(ARGV) do end\n', ['first', 'second'])).toThrow(
      /binds 'first' again/,
    );
    expect(
      load('pair-2.lua', '-- #include pair\nlocal function f(a, first) return a end\n', ['first', 'second']),
    ).toThrow(/binds 'first' again/);
  });

  it('refuses a script missing from the table, and an entry without its script', () => {
    const dir = scriptDir();
    writeFileSync(join(dir, 'stray-1.lua'), 'local only = KEYS[1]\n');
    expect(() => loadScripts(dir, {})).toThrow(/stray-1\.lua has no entry stray/);
    expect(() => loadScripts(dir, { stray: ['only'], gone: ['only'] })).toThrow(/No script file for gone/);
  });

  it('refuses a call with another number of keys than its script takes', () => {
    const calls: unknown[][] = [];
    const record = (...params: unknown[]) => {
      calls.push(params);
      return Promise.resolve(1);
    };
    const client = { celeriac_beatClaim: record, celeriac_storeRecords: record } as unknown as RedisClient;
    expect(() => runScript(client, 'beatClaim', ['lease', 'slots'], [])).toThrow(
      'Script beatClaim takes 3 keys (lease, slots, claimed), not 2',
    );
    expect(calls).toHaveLength(0);
    void runScript(client, 'beatClaim', ['a', 'b', 'c'], ['x']);
    void runScript(client, 'storeRecords', [], []);
    expect(calls).toEqual([[3, 'a', 'b', 'c', 'x'], [0]]);
  });

  it('writes out the queue keys in the order of QUEUE_KEYS, as the queue scripts take them', () => {
    const keys = new KeySpace('celeriac-test').queue('q');
    expect(queueKeyList(keys)).toEqual(QUEUE_KEYS.map((name) => keys[name]));
    expect(queueKeyList(keys)).toEqual(scriptKeys('reserve', keys));
  });

  it("builds each script's keys in its table order, all in one hash slot", () => {
    const space = new KeySpace('celeriac-test');
    const byName: Record<string, string> = {
      ...space.queue('default'),
      ...space.failed('default'),
      ...space.beat,
      revoked: space.revoked,
      revokedInfo: space.revokedInfo,
      group: space.group('g1'),
      // Celery's layout (kombu's names) is tagged by neither: kombu keys have no hash tag.
      unacked: 'unacked',
      unackedIndex: 'unacked_index',
      queue: 'celery',
    };
    for (const name of Object.keys(SCRIPT_KEYS) as ScriptName[]) {
      const entry = SCRIPT_KEYS[name];
      if (isVariadic(entry)) continue;
      const keys = scriptKeys(name as FixedKeyScript, byName as never);
      expect(keys).toEqual(entry.map((key) => byName[key]));
      if (!name.startsWith('celery')) expect(new Set(keys.map(keySlot)).size).toBe(1);
    }
    expect(scriptKeys('ack', space.queue('q'))).toEqual([
      'celeriac-test:{celeriac-test:q}:ready',
      'celeriac-test:{celeriac-test:q}:delayed',
      'celeriac-test:{celeriac-test:q}:active',
      'celeriac-test:{celeriac-test:q}:messages',
      'celeriac-test:{celeriac-test:q}:meta',
      'celeriac-test:{celeriac-test:q}:seq',
      'celeriac-test:{celeriac-test:q}:marker',
      'celeriac-test:{celeriac-test:q}:dead',
      'celeriac-test:{celeriac-test:q}:dead-info',
    ]);
  });
});
