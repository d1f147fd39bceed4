/**
 * Jest global setup: starts the test Sentinel setup (sentinel-servers.ts) for the `sentinel` project,
 * or for every project under `CELERIAC_REDIS_TOPOLOGY=sentinel`; reused when it is up already.
 */
import { startSentinelServers, stopSentinelServers } from './sentinel-servers';

/** Set when this run started the servers, so that the teardown stops only what it started. */
const STARTED = Symbol.for('celeriac.test.sentinelStarted');

export default async function setup(_global: unknown, project: { displayName?: { name?: string } }): Promise<void> {
  const wanted = project.displayName?.name === 'sentinel' || process.env.CELERIAC_REDIS_TOPOLOGY === 'sentinel';
  if (!wanted) return;
  const globals = globalThis as { [STARTED]?: boolean };
  if (await startSentinelServers()) globals[STARTED] = true;
}

/** Stops the servers if this run started them. */
export async function teardown(): Promise<void> {
  const globals = globalThis as { [STARTED]?: boolean };
  if (!globals[STARTED]) return;
  globals[STARTED] = false;
  await stopSentinelServers();
}
