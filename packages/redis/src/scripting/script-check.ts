/**
 * Checks one Lua script, its includes expanded, against its entry in its library's key table
 * (Celeriac's own is script-keys.ts), so that a script and its callers cannot drift apart unnoticed:
 * the loader runs it on every script once a process, and a mismatch fails at load (in every test
 * run), not at the first call.
 */
import { isVariadic, type VariadicKeys } from './script-keys';

/** A key declaration, one a line: `local ready = KEYS[1]`. */
const DECLARATION = /^local (\w+) = KEYS\[(\d+)\][ \t]*$/gm;
/** Names a script binds: locals, loop variables, function names and parameters. */
const BINDINGS = [
  /\blocal\s+function\s+(\w+)/g,
  /\blocal\s+(?!function\b)(\w+(?:\s*,\s*\w+)*)/g,
  /\bfor\s+(\w+(?:\s*,\s*\w+)*)\s*(?:=|\bin\b)/g,
  /\bfunction\s*\w*\s*\(([^)]*)\)/g,
];

/**
 * Throws unless `lua` (the script in `file`) declares exactly the keys of `keys`, in order, each once
 * as a local; indexes no key by number besides; takes as many keys as its file name says (`count`,
 * or `'n'` for any number); and never rebinds a key's name (a local of that name would hide it).
 * `tableFile` names where the table is written, for the message.
 */
export function checkScript(
  file: string,
  lua: string,
  count: number | 'n',
  keys: readonly string[] | VariadicKeys,
  tableFile: string,
): void {
  const fail = (problem: string): never => {
    throw new Error(`Lua script ${file}: ${problem} (keys in order: ${tableFile})`);
  };
  const variadic = isVariadic(keys);
  const names = variadic ? keys.head : keys;
  if (variadic !== (count === 'n')) {
    fail(variadic ? `takes any number of keys: name it <command>-n.lua` : `takes ${names.length} keys, not any number`);
  }
  if (count !== 'n' && count !== names.length) fail(`its name says ${count} keys, but it takes ${names.length}`);

  const code = lua.replace(/--.*$/gm, '');
  const declared = [...code.matchAll(DECLARATION)].map((match) => ({ name: match[1], index: Number(match[2]) }));
  const expected = names.map((name, i) => `${name} = KEYS[${i + 1}]`).join(', ');
  const found = declared.map(({ name, index }) => `${name} = KEYS[${index}]`).join(', ');
  if (found !== expected) fail(`declares ${found || 'no keys'}; expected ${expected || 'none'}`);

  const body = code.replace(DECLARATION, '');
  const numbered = /\bKEYS\s*\[\s*\d+\s*\]/.exec(body);
  if (numbered) fail(`indexes ${numbered[0]} by number; use the local that names it`);
  if (!variadic && /\bKEYS\b/.test(body)) fail(`uses KEYS past its declarations, though it takes ${names.length} keys`);

  const keyNames = new Set(names);
  for (const pattern of BINDINGS) {
    for (const match of body.matchAll(pattern)) {
      for (const bound of (match[1] ?? '').split(',').map((name) => name.trim())) {
        if (keyNames.has(bound)) fail(`binds '${bound}' again, which hides the key of that name`);
      }
    }
  }
}
