/**
 * How a pool child dies with its parent, even while its task spins without yielding (so the IPC
 * channel's 'disconnect' never fires). On Linux the child is started through util-linux's
 * `setpriv --pdeathsig KILL`, and the kernel kills it the moment the worker dies, at no cost to the
 * child. Where `setpriv` is missing (macOS, minimal images), the child starts a watchdog thread
 * instead, which costs every child a thread's start-up (10–20 % of the fork pool's throughput).
 */
import { spawnSync } from 'node:child_process';
import { WATCHDOG_ENV } from './protocol';

/** The command that starts a child running `entry`, and the environment it needs for its guard. */
export interface ChildCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

let kernelGuard: boolean | undefined;

/** Whether `setpriv --pdeathsig` works here: asked once per process, with a command that does nothing. */
function hasKernelGuard(): boolean {
  if (kernelGuard === undefined) {
    kernelGuard = process.platform === 'linux' && spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' }).status === 0;
  }
  return kernelGuard;
}

/** Builds the command line of a pool child: `node [execArgv] entry`, behind setpriv where it works. */
export function guardedChildCommand(entry: string): ChildCommand {
  const node = [...process.execArgv, entry];
  if (hasKernelGuard()) return { command: 'setpriv', args: ['--pdeathsig', 'KILL', '--', process.execPath, ...node], env: {} };
  return { command: process.execPath, args: node, env: { [WATCHDOG_ENV]: '1' } };
}
