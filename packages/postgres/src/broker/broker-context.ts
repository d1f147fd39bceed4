/**
 * What every part of the PostgreSQL broker shares: the connection set, the settings, the quoted
 * table names and the notification channels, all read in one place.
 */
import { createHash } from 'node:crypto';
import type { BrokerSettings } from '@celeriac/core';
import type { PostgresConnection } from '../connection/postgres-connection';
import { quoted } from '../connection/schema-name';

/** PostgreSQL's limit on an identifier (a channel name is one), in bytes. */
const MAX_IDENTIFIER = 63;

/** The broker's tables, schema-qualified and quoted, ready to put in SQL. */
export interface BrokerTables {
  readonly messages: string;
  readonly queues: string;
  readonly paused: string;
  readonly dead: string;
  readonly failed: string;
  readonly revocations: string;
  readonly workers: string;
  readonly notices: string;
  readonly rateLimits: string;
  readonly uniqueLocks: string;
  readonly debounceLocks: string;
  readonly limitedQueues: string;
  /** The claim function (see migration 102). */
  readonly claim: string;
  /** The function freeing the slots of ended leases. */
  readonly releaseSlots: string;
  /** The server clock in epoch ms, as an SQL expression. */
  readonly now: string;
}

/** The channels the broker NOTIFYs on, named from the schema so two apps never hear each other. */
export interface BrokerChannels {
  /** Messages became ready or due: the payload lists `{ q, at }`, the queue and its earliest due time. */
  readonly work: string;
  readonly revoke: string;
  readonly control: string;
  readonly replies: string;
}

/** One broker's shared parts. */
export interface BrokerContext {
  readonly connection: PostgresConnection;
  readonly settings: BrokerSettings;
  readonly tables: BrokerTables;
  readonly channels: BrokerChannels;
}

/** Builds the context of a broker on `connection`. */
export function brokerContext(connection: PostgresConnection, settings: BrokerSettings): BrokerContext {
  const s = quoted(connection.schema);
  const table = (name: string) => `${s}.${name}`;
  return {
    connection,
    settings,
    tables: {
      messages: table('messages'),
      queues: table('queues'),
      paused: table('paused_queues'),
      dead: table('dead_letters'),
      failed: table('failed_tasks'),
      revocations: table('revocations'),
      workers: table('workers'),
      notices: table('notices'),
      rateLimits: table('rate_limits'),
      uniqueLocks: table('unique_locks'),
      debounceLocks: table('debounce_locks'),
      limitedQueues: table('limited_queues'),
      claim: table('claim'),
      releaseSlots: table('release_slots'),
      now: `${s}.now_ms()`,
    },
    channels: {
      work: channel(connection.schema, 'work'),
      revoke: channel(connection.schema, 'revoke'),
      control: channel(connection.schema, 'control'),
      replies: channel(connection.schema, 'replies'),
    },
  };
}

/**
 * `<schema>_<kind>`, or, when that would be over the identifier limit (PostgreSQL would cut it, and
 * two long schemas could then share a channel), the schema's start and a hash of the whole.
 */
function channel(schema: string, kind: string): string {
  const name = `${schema}_${kind}`;
  if (Buffer.byteLength(name) <= MAX_IDENTIFIER) return name;
  const hash = createHash('sha256').update(schema).digest('hex').slice(0, 12);
  return `${schema.slice(0, MAX_IDENTIFIER - kind.length - hash.length - 2)}_${hash}_${kind}`;
}
