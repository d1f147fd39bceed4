/**
 * Loads the Lua scripts (one per file under `scripts/`, named `<command>-<number of keys>.lua`, or
 * `<command>-n.lua` for a script that takes any number of keys; every call passes the count), expands
 * `-- #include <fragment>` lines, and registers each on a client, which then calls it by SHA.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isCluster, type RedisClient } from './redis-client';
import { retryWhileSlotMoves } from './slot-migration';

/** The scripts this package ships. */
export type ScriptName =
  | 'publish'
  | 'reserve'
  | 'ack'
  | 'ackFailed'
  | 'keepFailed'
  | 'discardFailed'
  | 'requeue'
  | 'requeueLost'
  | 'deadLetter'
  | 'extendLeases'
  | 'recover'
  | 'revoke'
  | 'revokeNote'
  | 'purge'
  | 'resume'
  | 'requeueDead'
  | 'discardDead'
  | 'groupDone'
  | 'storeRecords'
  | 'beatLease'
  | 'beatRelease'
  | 'beatSync'
  | 'beatClaim'
  | 'beatPut'
  | 'beatRemove'
  | 'celeryReserve'
  | 'celeryRestore';

interface ScriptSource {
  name: ScriptName;
  lua: string;
}

// The same path works from src/ (tests) and dist/ (built, installed): the package ships src/scripts beside dist/.
const SCRIPT_DIR = resolve(__dirname, '..', 'src', 'scripts');
const INCLUDE = /^-- #include (\S+)\s*$/gm;

let cached: ScriptSource[] | undefined;

/** Reads every script once per process. */
export function loadScripts(dir: string = SCRIPT_DIR): ScriptSource[] {
  if (cached && dir === SCRIPT_DIR) return cached;
  const sources = readdirSync(dir)
    .filter((file) => file.endsWith('.lua'))
    .map((file): ScriptSource => {
      const match = /^(.+)-(\d+|n)\.lua$/.exec(file);
      if (!match) throw new Error(`Script file ${file} must be named <command>-<keys>.lua or <command>-n.lua`);
      const lua = readFileSync(join(dir, file), 'utf8').replace(INCLUDE, (_, fragment: string) =>
        readFileSync(join(dir, 'includes', `${fragment}.lua`), 'utf8'),
      );
      return { name: camelCase(match[1] as string) as ScriptName, lua };
    });
  if (dir === SCRIPT_DIR) cached = sources;
  return sources;
}

/**
 * Registers every script as a command on `client`. The number of keys is passed with each call
 * (see {@link runScript}), so one calling convention serves fixed and variable key counts alike.
 */
export function defineScripts(client: RedisClient): void {
  for (const script of loadScripts()) client.defineCommand(commandName(script.name), { lua: script.lua });
}

/** Calls a registered script; on a cluster, again while its slot migrates (see slot-migration.ts). */
export function runScript<T>(
  client: RedisClient,
  name: ScriptName,
  keys: readonly string[],
  args: ReadonlyArray<string | number>,
): Promise<T> {
  const command = (client as unknown as Record<string, (...params: Array<string | number>) => Promise<T>>)[
    commandName(name)
  ];
  if (!command) throw new Error(`Script ${name} is not defined on this client`);
  const call = () => command.call(client, keys.length, ...keys, ...args);
  return isCluster(client) ? retryWhileSlotMoves(call) : call();
}

/** Script methods get a prefix so they never shadow a Redis command of the same name (PUBLISH). */
function commandName(name: ScriptName): string {
  return `celeriac_${name}`;
}

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
