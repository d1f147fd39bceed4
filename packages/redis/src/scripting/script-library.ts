/**
 * A folder of Lua scripts and the table of the keys each takes, as one unit: the scripts are read
 * once a process (`-- #include <fragment>` lines expanded from `includes/`), each checked against its
 * entry (script-check.ts), defined on a client and called by name, the key count checked at each
 * call. Celeriac's own scripts are one library (scripts.ts); a package with scripts of its own (the
 * Celery protocol's, for kombu's keys) makes another from its folder and table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isCluster, type RedisClient } from '../connection/redis-client';
import { retryWhileSlotMoves } from '../connection/slot-migration';
import { checkScript } from './script-check';
import { isVariadic, type VariadicKeys } from './script-keys';

/** Each script's keys, by script name (camelCase of the file name without its key count). */
export type ScriptKeyTable = Readonly<Record<string, readonly string[] | VariadicKeys>>;

/** One script as read: its name and its Lua, includes expanded. */
export interface ScriptSource<Name extends string = string> {
  readonly name: Name;
  readonly lua: string;
}

/** Where a library's scripts are and how its commands are named. */
export interface ScriptLibraryOptions<Table extends ScriptKeyTable> {
  /** The folder of `<command>-<keys>.lua` files (and `includes/`). */
  readonly dir: string;
  /** The keys of each script, in KEYS order: every file has an entry, every entry a file. */
  readonly table: Table;
  /**
   * Put before each script's name to name its command on a client: it must differ between
   * libraries, so two libraries' scripts of the same name never take each other's place.
   */
  readonly commandPrefix: string;
  /** Where `table` is written, for the messages of a script that strays from it. */
  readonly tableFile: string;
}

/** A library's scripts, defined on clients and called by name. */
export interface ScriptLibrary<Name extends string> {
  /** Every script, read and checked once (a mismatch with the table throws here, before any call). */
  load(): ReadonlyArray<ScriptSource<Name>>;
  /** Defines every script as a command on `client` (calling {@link ScriptLibrary.run} does it too). */
  define(client: RedisClient): void;
  /**
   * Calls script `name` with `keys` and `args`; on a cluster, again while its slot migrates (see
   * slot-migration.ts). Defines the library's scripts on `client` first when they are not yet.
   * Throws when `keys` is not as long as the script's table entry says (a bug of the caller).
   */
  run<T>(client: RedisClient, name: Name, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<T>;
}

const INCLUDE = /^-- #include (\S+)\s*$/gm;

/** Makes the library of the scripts in `options.dir`; nothing is read until first used. */
export function scriptLibrary<Table extends ScriptKeyTable>(
  options: ScriptLibraryOptions<Table>,
): ScriptLibrary<keyof Table & string> {
  type Name = keyof Table & string;
  let cached: Array<ScriptSource<Name>> | undefined;
  const load = () =>
    (cached ??= readScripts(options.dir, options.table, options.tableFile) as Array<ScriptSource<Name>>);
  const commandName = (name: string) => `${options.commandPrefix}${name}`;
  const define = (client: RedisClient) => {
    for (const script of load()) client.defineCommand(commandName(script.name), { lua: script.lua });
  };
  return {
    load,
    define,
    run<T>(client: RedisClient, name: Name, keys: readonly string[], args: ReadonlyArray<string | number>) {
      checkKeyCount(name, options.table[name] as readonly string[] | VariadicKeys, keys.length);
      type Command = (...params: Array<string | number>) => Promise<T>;
      const commands = client as unknown as Record<string, Command | undefined>;
      if (!commands[commandName(name)]) define(client);
      const command = commands[commandName(name)];
      if (!command) throw new Error(`Script ${name} is not defined on this client`);
      const call = () => command.call(client, keys.length, ...keys, ...args);
      return isCluster(client) ? retryWhileSlotMoves(call) : call();
    },
  };
}

/**
 * Reads every script in `dir` and checks each against `table` (its keys, see script-check.ts), and
 * that every script of the table has its file: a mismatch throws.
 */
export function readScripts(dir: string, table: ScriptKeyTable, tableFile: string): ScriptSource[] {
  const sources = readdirSync(dir)
    .filter((file) => file.endsWith('.lua'))
    .map((file): ScriptSource => {
      const match = /^(.+)-(\d+|n)\.lua$/.exec(file);
      if (!match) throw new Error(`Script file ${file} must be named <command>-<keys>.lua or <command>-n.lua`);
      const name = camelCase(match[1] as string);
      const keys = table[name];
      if (!keys) throw new Error(`Script file ${file} has no entry ${name} in the script key table (${tableFile})`);
      const lua = readFileSync(join(dir, file), 'utf8').replace(INCLUDE, (_, fragment: string) =>
        readFileSync(join(dir, 'includes', `${fragment}.lua`), 'utf8'),
      );
      checkScript(file, lua, match[2] === 'n' ? 'n' : Number(match[2]), keys, tableFile);
      return { name, lua };
    });
  const missing = Object.keys(table).filter((name) => !sources.some((source) => source.name === name));
  if (missing.length > 0) throw new Error(`No script file for ${missing.join(', ')} in ${dir}`);
  return sources;
}

/** A call with another number of keys than its script takes is a bug of the caller: say so at once. */
function checkKeyCount(name: string, keys: readonly string[] | VariadicKeys, count: number): void {
  const variadic = isVariadic(keys);
  const names = variadic ? keys.head : keys;
  if (variadic ? count >= names.length : count === names.length) return;
  const expected = variadic ? `at least ${names.length}` : String(names.length);
  throw new Error(`Script ${name} takes ${expected} keys (${names.join(', ')}), not ${count}`);
}

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
