/**
 * Every Redis server of the tests' topology, for what each server keeps to itself (ACL users, for
 * one): the single node; the masters and replicas of the test cluster; the master and the replica
 * of the Sentinel setup.
 */
import { Redis } from 'ioredis';
import { CLUSTER_PORTS } from './redis-cluster';
import { REDIS_URL, redisTopology } from './redis-fixture';
import { SENTINEL_SERVER_PORTS } from './sentinel-servers';

/** A plain client of each server of the topology; the caller closes them. */
export function topologyServers(): Redis[] {
  const topology = redisTopology();
  if (topology === 'single') return [new Redis(REDIS_URL)];
  const ports = topology === 'cluster' ? CLUSTER_PORTS : SENTINEL_SERVER_PORTS;
  return ports.map((port) => new Redis({ host: '127.0.0.1', port }));
}

/** The tests' Redis URL (`REDIS_URL`) with a user and password, for any topology's URL form. */
export function redisUrlAs(user: string, password: string): string {
  return REDIS_URL.replace('://', `://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`);
}
