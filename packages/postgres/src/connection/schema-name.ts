import { CeleriacError } from '@celeriac/core';

/** PostgreSQL's limit on an identifier, in bytes. */
const MAX_IDENTIFIER = 63;

/**
 * The schema Celeriac's tables live in, named from the app's `prefix`: lower case, with every
 * character that would need quoting turned into `_` (so `myapp:jobs` → `myapp_jobs`).
 * @throws CeleriacError `CELERIAC_INVALID_OPTION` when nothing usable is left, or it is too long.
 */
export function schemaName(prefix: string): string {
  const name = prefix.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  if (!/^[a-z_]/.test(name) || name.length > MAX_IDENTIFIER) {
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `The prefix '${prefix}' cannot name a PostgreSQL schema: start it with a letter and keep it under ` +
        `${MAX_IDENTIFIER + 1} characters.`,
    );
  }
  return name;
}

/** `name` quoted as an identifier (the schema name is already plain; quoting keeps reserved words safe). */
export function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
