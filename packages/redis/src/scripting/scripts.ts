/**
 * Celeriac's own Lua scripts (one per file under `scripts/`, named `<command>-<number of keys>.lua`,
 * or `<command>-n.lua` for a script that takes any number of keys; every call passes the count), as
 * one {@link scriptLibrary}: each checked against its keys in script-keys.ts, registered on each
 * client of a connection, which then calls it by SHA.
 */
import { resolve } from 'node:path';
import type { RedisClient } from '../connection/redis-client';
import { readScripts, scriptLibrary, type ScriptKeyTable, type ScriptSource } from './script-library';
import { SCRIPT_KEYS, type ScriptName } from './script-keys';

export type { ScriptName } from './script-keys';

// The same path works from src/scripting/ (tests) and dist/scripting/ (built, installed): the package ships
// src/scripts beside dist/.
const SCRIPT_DIR = resolve(__dirname, '..', '..', 'src', 'scripts');
const TABLE_FILE = 'packages/redis/src/scripting/script-keys.ts';

/** Script commands get a prefix so they never shadow a Redis command of the same name (PUBLISH). */
const CELERIAC_SCRIPTS = scriptLibrary({
  dir: SCRIPT_DIR,
  table: SCRIPT_KEYS,
  commandPrefix: 'celeriac_',
  tableFile: TABLE_FILE,
});

/**
 * Reads the scripts of `dir` and checks each against `table`: by default the shipped scripts (read
 * once a process); another folder and table are read anew, as the tests of the checks do.
 */
export function loadScripts(dir?: string, table?: ScriptKeyTable): ReadonlyArray<ScriptSource> {
  if (dir === undefined && table === undefined) return CELERIAC_SCRIPTS.load();
  return readScripts(dir ?? SCRIPT_DIR, table ?? SCRIPT_KEYS, TABLE_FILE);
}

/**
 * Registers every script as a command on `client`. The number of keys is passed with each call
 * (see {@link runScript}), so one calling convention serves fixed and variable key counts alike.
 */
export function defineScripts(client: RedisClient): void {
  CELERIAC_SCRIPTS.define(client);
}

/**
 * Calls a registered script; on a cluster, again while its slot migrates (see slot-migration.ts).
 * Throws when `keys` is not as long as the script's entry in script-keys.ts says.
 */
export function runScript<T>(
  client: RedisClient,
  name: ScriptName,
  keys: readonly string[],
  args: ReadonlyArray<string | number>,
): Promise<T> {
  return CELERIAC_SCRIPTS.run<T>(client, name, keys, args);
}
