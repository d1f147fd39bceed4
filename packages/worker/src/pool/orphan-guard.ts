/**
 * How a pool child dies with its worker, even while its task spins without yielding (so it never
 * reads that its pipe closed).
 *
 * On Linux, one reaper per worker process does it: a shell that waits on a pipe from the worker.
 * However the worker ends (SIGKILL included), the kernel closes that pipe, and the reaper SIGKILLs
 * every process started with this worker's token in its environment: the pool children, and what
 * their tasks started. A child pays nothing for it (`setpriv --pdeathsig`, used before, cost every
 * fork child an extra exec, ~2 % of the fork pool's throughput). The reaper ignores the terminal's
 * Ctrl-C, which reaches the whole process group: the worker decides when its children stop.
 *
 * Where the reaper cannot work (no /proc, no `grep -z`: macOS, minimal images), each child starts a
 * watchdog thread instead, which costs it a thread's start-up (10–20 % of the fork pool's throughput).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { WATCHDOG_ENV } from './protocol';

/** The command that starts a child running `entry`, and the environment it needs for its guard. */
export interface ChildCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** Names this worker's token in its children's environment. */
export const REAPER_TOKEN_ENV = 'CELERIAC_WORKER_TOKEN';

/**
 * The reaper: `$1` is the token. It reads until the worker's end of the pipe closes, then kills
 * each process whose environment holds the token (the reaper's own and grep's do not).
 */
const REAPER_SCRIPT = `trap '' INT TERM HUP
while read -r _; do :; done
for f in $(grep -lzx "${REAPER_TOKEN_ENV}=$1" /proc/[0-9]*/environ 2>/dev/null); do
  p=\${f#/proc/}; kill -9 "\${p%/environ}" 2>/dev/null
done`;

let reaperWorks: boolean | undefined;
let token: string | undefined;
let reaper: ChildProcess | undefined;

/** Whether a reaper can find and kill children here: asked once per process. */
function canReap(): boolean {
  reaperWorks ??=
    process.platform === 'linux' &&
    existsSync('/proc/self/environ') &&
    spawnSync('/bin/sh', ['-c', 'grep -lzx x /dev/null'], { stdio: 'ignore' }).status === 1;
  return reaperWorks;
}

/** This worker's token, with a reaper running for it (started again if it died). */
function reaperToken(): string {
  token ??= randomUUID();
  if (!reaper || reaper.exitCode !== null || reaper.signalCode !== null) {
    // Not with a token of its own: a worker run by a task must keep its reaper when the outer one sweeps.
    const env = { ...process.env };
    delete env[REAPER_TOKEN_ENV];
    reaper = spawn('/bin/sh', ['-c', REAPER_SCRIPT, 'celeriac-reaper', token], { stdio: ['pipe', 'ignore', 'ignore'], env });
    reaper.on('error', () => undefined);
    // The worker never writes to the pipe: holding it open is all it does, and that must not keep
    // the worker alive.
    reaper.stdin?.on('error', () => undefined);
    (reaper.stdin as unknown as { unref?(): void } | null)?.unref?.();
    reaper.unref();
  }
  return token;
}

/** Builds the command line of a pool child: `node [execArgv] [flags] entry`, and its guard's environment. */
export function guardedChildCommand(entry: string, flags: string[] = []): ChildCommand {
  const args = [...process.execArgv, ...flags, entry];
  if (canReap()) return { command: process.execPath, args, env: { [REAPER_TOKEN_ENV]: reaperToken() } };
  return { command: process.execPath, args, env: { [WATCHDOG_ENV]: '1' } };
}
