/** Helpers for the `celeriac beat` end-to-end tests: the fixture module, short CLI runs, fired slots. */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { REDIS_URL } from '@celeriac/test-support';
import type { LogLine, WorkerProcess } from './worker-process';

const ROOT = resolve(__dirname, '../../../../..');
const CLI = join(ROOT, 'packages/celeriac/dist/cli/main.js');
/** The app module `celeriac beat` loads. */
export const BEAT_APP = join(__dirname, '../fixtures/beat-app.js');

/** What a finished CLI run printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `celeriac <args>` to its end on a test's prefix, on the Redis of the tests' topology unless `env` says. */
export function runCli(args: string[], prefix: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, REDIS_URL, CELERIAC_TEST_PREFIX: prefix, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolvePromise) => child.once('close', (code) => resolvePromise({ code, stdout, stderr })));
}

/** The `Fired <entry>` lines a beat process logged so far. */
export function firedLines(beat: WorkerProcess, entry = 'tick'): LogLine[] {
  return beat.lines.filter((line) => line.msg === `Fired ${entry}`);
}

/** Resolves once the beat process has fired `count` slots of `entry` in all. */
export async function untilFired(beat: WorkerProcess, count: number, entry = 'tick'): Promise<void> {
  await beat.waitForLog(
    (line) => line.msg === `Fired ${entry}` && firedLines(beat, entry).length >= count,
    `${count} firings of ${entry}`,
  );
}

/** The slot (epoch ms) in a task id `beat:<entry>:<slot>`. */
export function slotOf(id: string): number {
  return Number(id.slice(id.lastIndexOf(':') + 1));
}

/**
 * Kills the leading scheduler `leader` with SIGKILL; resolves once `standby` has taken the lease
 * over and fired a slot of `tick` due well after the dead leader's lease (`leaseMs`) lapsed.
 */
export async function killLeader(leader: WorkerProcess, standby: WorkerProcess, leaseMs: number): Promise<void> {
  leader.signal('SIGKILL');
  const killedAt = Date.now();
  await leader.exited;
  await standby.waitForLog((line) => line.msg.startsWith('Leading'), 'the take-over');
  await standby.waitForLog(
    (line) => line.msg === 'Fired tick' && Date.parse(String(line.slot)) > killedAt + leaseMs + 500,
    'slots after the take-over',
  );
}
