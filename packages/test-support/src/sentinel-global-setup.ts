/**
 * Starting and stopping the test Sentinel setup (sentinel-servers.ts) around a jest run: for the
 * `sentinel` project, and for every project under `CELERIAC_REDIS_TOPOLOGY=sentinel`. A setup that is
 * up already is reused, and the teardown stops only what this run started.
 */
import { startSentinelServers, stopSentinelServers } from './sentinel-servers';

/** Set when this run started the servers, so that the teardown stops only what it started. */
const STARTED = Symbol.for('celeriac.test.sentinelStarted');

/** Starts the Sentinel setup, or reuses one that is up and healthy. */
export async function startSentinelForTests(): Promise<void> {
  const globals = globalThis as { [STARTED]?: boolean };
  if (await startSentinelServers()) globals[STARTED] = true;
}

/** Stops the servers if this run started them. */
export async function stopSentinelForTests(): Promise<void> {
  const globals = globalThis as { [STARTED]?: boolean };
  if (!globals[STARTED]) return;
  globals[STARTED] = false;
  await stopSentinelServers();
}
