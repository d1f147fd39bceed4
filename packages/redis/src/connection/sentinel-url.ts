/**
 * `redis+sentinel://` URLs: where the Sentinels are and which master they watch, as ioredis options.
 *
 *     redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/master-name[/db]
 *         [?sentinelUsername=...&sentinelPassword=...]
 *
 * The user and password are the Redis servers' (master and replicas); the Sentinels' own, when they
 * require one, go in the query. A host without a port means 26379, Sentinel's port.
 * `rediss+sentinel://` speaks TLS to the servers and to the Sentinels.
 */
import { CeleriacError } from '@celeriac/core';
import { parseTransportUrl, redactUrl, transportHosts } from '@celeriac/core/internal';
import type { RedisOptions } from 'ioredis';

/** The URL schemes of a Redis behind Sentinels. */
export const SENTINEL_SCHEMES = ['redis+sentinel:', 'rediss+sentinel:'];

/** Sentinel's own port, the default for a host given without one. */
const SENTINEL_PORT = 26379;
/** The query parameters a Sentinel URL may carry. */
const QUERY_PARAMETERS = ['sentinelUsername', 'sentinelPassword'];
const GRAMMAR = 'redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/master-name[/db]';

/** True when `url` names a Redis behind Sentinels. */
export function isSentinelUrl(url: string): boolean {
  return /^rediss?\+sentinel:/i.test(url);
}

/**
 * The ioredis options that reach the master `url` names through its Sentinels. The clients ask a
 * Sentinel for the master on every (re)connect and check its role; a connection to a master that
 * died drops, and one to a master that became a replica is dropped at its first refused write or
 * ended wait, so they follow a failover by themselves.
 * @throws CeleriacError `CELERIAC_INVALID_OPTION` saying what is wrong with the URL and how it is written.
 */
export function sentinelOptions(url: string): RedisOptions {
  let parsed: URL;
  try {
    parsed = parseTransportUrl(url);
  } catch {
    throw badUrl(url, 'it is not a URL');
  }
  const sentinels = transportHosts(parsed).map((host) => sentinelAddress(url, host));
  if (sentinels.length === 0) throw badUrl(url, 'it names no Sentinel host');
  const [name, db, ...extra] = parsed.pathname.split('/').slice(1).map(decodeURIComponent);
  if (!name) throw badUrl(url, 'it names no master: add the name Sentinel knows it by (/mymaster)');
  if (extra.length > 0 || (db !== undefined && !/^\d+$/.test(db))) {
    throw badUrl(url, 'after the master name only a database number may follow (/mymaster/0)');
  }
  for (const key of parsed.searchParams.keys()) {
    if (!QUERY_PARAMETERS.includes(key)) {
      throw badUrl(url, `it has the unknown parameter ${key} (known: ${QUERY_PARAMETERS.join(', ')})`);
    }
  }
  const tls = parsed.protocol === 'rediss+sentinel:';
  return {
    sentinels,
    name,
    db: db === undefined || db === '' ? 0 : Number(db),
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    sentinelUsername: parsed.searchParams.get('sentinelUsername') ?? undefined,
    sentinelPassword: parsed.searchParams.get('sentinelPassword') ?? undefined,
    role: 'master',
    // Not ioredis's failoverDetector: its +switch-master announcement can arrive while the client is
    // reconnecting, and ioredis then ends the client for good (status 'end', no more retries).
    // A write that reached a demoted master, or a blocking wait its demotion ended: reconnect (to
    // the master Sentinel names now) and send it again; neither ran.
    reconnectOnError: (error) => (/^(READONLY|UNBLOCKED)/.test(error.message) ? 2 : false),
    ...(tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
  };
}

/** One `host[:port]` of the list (`[::1]:26379` for IPv6). */
function sentinelAddress(url: string, text: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d+))?$/.exec(text);
  if (!match?.[1]) throw badUrl(url, `the Sentinel address "${text}" is not host or host:port`);
  const port = match[2] === undefined ? SENTINEL_PORT : Number(match[2]);
  if (port < 1 || port > 65_535) throw badUrl(url, `the port of "${text}" is out of range`);
  return { host: match[1].replace(/^\[(.*)\]$/, '$1'), port };
}

function badUrl(url: string, problem: string): CeleriacError {
  return new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `The Sentinel URL ${redactUrl(url)} cannot be used: ${problem}. Write it as ${GRAMMAR}, ` +
      `e.g. redis+sentinel://s1:26379,s2:26379/mymaster.`,
  );
}
