/**
 * Turns PostgreSQL's failures into the errors callers branch on, naming the server and what to
 * check: a server out of reach, a database or role that does not exist or a wrong password (the
 * broker is unavailable until someone fixes it: workers keep trying), a right the role lacks
 * (`CELERIAC_NO_PERMISSION`).
 */
import { BrokerUnavailableError, CeleriacError } from '@celeriac/core';

/** Where the connection goes, as messages name it. */
export interface ServerFacts {
  /** The URL without its password. */
  readonly url: string;
}

/** Error codes of a connection that failed or went away (node's socket codes, SQLSTATE classes 08 and 57P). */
const CONNECTION_CODES = /^(ECONN|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|EPIPE|EAI_AGAIN|08|57P0)/;
/** node-postgres reports a dropped socket by message only. */
const CONNECTION_MESSAGES = /Connection terminated|connection timeout|Client has encountered a connection error/i;

/** What to check for SQLSTATEs that mean the URL names something the server does not have. */
const SETUP_FAILURES: Readonly<Record<string, string>> = {
  '3D000': "Create the database (createdb <name>) or fix the database in the URL's path.",
  '28000': 'Create the role (CREATE ROLE <name> LOGIN), or fix the user in the URL, or allow it in pg_hba.conf.',
  '28P01': 'Fix the password in the URL (or the PGPASSWORD the process runs with).',
};

/** True for a failure to reach the server, not a statement the server refused. */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof BrokerUnavailableError) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (typeof code === 'string' && CONNECTION_CODES.test(code)) ||
    (typeof message === 'string' && CONNECTION_MESSAGES.test(message))
  );
}

/**
 * `error` as a BrokerUnavailableError when the server could not be reached or refused the URL's
 * database, role or password, as `CELERIAC_NO_PERMISSION` when the role lacks a right; other errors
 * as they are.
 */
export function unreachable(error: unknown, action: string, server: ServerFacts): unknown {
  if (error instanceof CeleriacError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const { code } = error as { code?: unknown };
  const setup = typeof code === 'string' ? SETUP_FAILURES[code] : undefined;
  if (setup !== undefined) {
    return new BrokerUnavailableError(
      `Could not ${action}: PostgreSQL at ${server.url} refused the connection (${message}). ${setup}`,
      { cause: error },
    );
  }
  if (code === '42501') {
    return new CeleriacError(
      'CELERIAC_NO_PERMISSION',
      `Could not ${action}: the PostgreSQL role lacks a right (${message}). Celeriac's role needs CREATE on the ` +
        'database to make its schema at first start (GRANT CREATE ON DATABASE <db> TO <role>), or the schema made ' +
        'beforehand and owned by it (docs/postgres.md, "Roles and rights").',
      { cause: error },
    );
  }
  if (!isConnectionFailure(error)) return error;
  return new BrokerUnavailableError(
    `Could not ${action}: PostgreSQL at ${server.url} is unreachable (${message}). Check that it runs and that ` +
      `the URL is right.`,
    { cause: error },
  );
}

/** Runs `call`, throwing a lost connection as BrokerUnavailableError (see {@link unreachable}). */
export async function orUnreachable<T>(action: string, server: ServerFacts, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw unreachable(error, action, server);
  }
}
