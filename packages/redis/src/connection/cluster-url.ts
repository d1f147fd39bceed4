/**
 * Redis Cluster URLs: `redis+cluster://[user:password@]host:port,host:port,...` (`rediss+cluster://`
 * for TLS). The hosts are startup nodes: any reachable one tells the client the rest of the cluster.
 */
import { CeleriacError } from '@celeriac/core';
import { parseTransportUrl, redactUrl, transportHosts } from '@celeriac/core/internal';
import type { ClusterOptions } from 'ioredis';

/** The URL schemes of a Redis Cluster. */
export const CLUSTER_SCHEMES = ['redis+cluster:', 'rediss+cluster:'] as const;

/** A startup node of a cluster. */
export interface ClusterNode {
  host: string;
  port: number;
}

/** What a cluster URL says: where to start, and how to log in. */
export interface ClusterTarget {
  nodes: ClusterNode[];
  /** Options for the connection to each node (credentials, TLS). */
  redisOptions: NonNullable<ClusterOptions['redisOptions']>;
}

/** One `host[:port]` of the list (`[::1]:7000` for IPv6). */
const NODE = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/;

/** True for a `redis+cluster://` or `rediss+cluster://` URL. */
export function isClusterUrl(text: string): boolean {
  return /^rediss?\+cluster:\/\//i.test(text);
}

/**
 * Reads a cluster URL (its host list as core reads every transport URL's, see transport-url.ts).
 * @throws CeleriacError `CELERIAC_UNSUPPORTED_URL` when it is malformed, names no host, or selects a
 * database other than 0 (a cluster has only database 0).
 */
export function parseClusterUrl(text: string): ClusterTarget {
  const fail = (why: string) =>
    new CeleriacError(
      'CELERIAC_UNSUPPORTED_URL',
      `The Redis Cluster URL ${JSON.stringify(redactUrl(text))} ${why}. Write it as ` +
        `'redis+cluster://host1:7000,host2:7001,host3:7002' (optionally 'user:password@' before the hosts).`,
    );
  if (!isClusterUrl(text)) throw fail('is not a cluster URL');
  let url: URL;
  try {
    url = parseTransportUrl(text);
  } catch {
    throw fail('has hosts that are not host:port');
  }
  const db = /^\/?(\d*)\/?$/.exec(url.pathname)?.[1];
  if (db === undefined) throw fail('is not a cluster URL');
  if (db !== '' && db !== '0') throw fail(`selects database ${db}; a cluster has only database 0`);
  const hosts = transportHosts(url);
  if (hosts.length === 0) throw fail('names no host');
  const nodes = hosts.map((spec): ClusterNode => {
    const node = NODE.exec(spec.trim());
    if (!node) throw fail(`has a host ${JSON.stringify(spec)} that is not host:port`);
    return { host: (node[1] ?? node[2]) as string, port: node[3] === undefined ? 6379 : Number(node[3]) };
  });
  const redisOptions: ClusterTarget['redisOptions'] = {};
  if (url.username) redisOptions.username = decodeURIComponent(url.username);
  if (url.password) redisOptions.password = decodeURIComponent(url.password);
  if (url.protocol === 'rediss+cluster:') redisOptions.tls = {};
  return { nodes, redisOptions };
}
