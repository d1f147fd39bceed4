/** What the operator commands (status, inspect, control, queue, result, revoke, call) share. */
import { CeleriacError, type ControlReply } from '@celeriac/core';
import type { LoadedApp } from '@celeriac/worker/internal';
import type { Command } from 'commander';
import { loadAppOrExit } from './load';
import { createLogger } from './logger';
import { duration } from './parse';
import { withApp } from './with-app';
import { appOption } from './app-option';

/** Flags every operator command takes. */
export interface OpsFlags {
  app: string;
  json?: boolean;
  timeout: number;
}

/** Adds `-A`, `--json` and `--timeout` to a command. */
export function withOpsOptions(command: Command, timeoutHelp = 'how long to wait for workers to answer'): Command {
  return command
    .addOption(appOption())
    .option('--json', 'print JSON for scripts')
    .option('--timeout <duration>', timeoutHelp, duration, 1_000);
}

/** Loads the app of `-A` (exit code 2 when it cannot), runs `work` on it (exit code 1 on an error) and closes it. */
export function withOpsApp(flags: OpsFlags, name: string, work: (app: LoadedApp) => Promise<void>): Promise<void> {
  return withApp(loadAppOrExit(flags.app, createLogger({ level: 'warn', json: false, name })), work);
}

/** Replies from the workers, or the error saying none answered. */
export function answered(replies: ControlReply[], timeout: number, destination?: string): ControlReply[] {
  if (replies.length > 0) return replies;
  const who = destination === undefined ? 'No worker' : `Worker ${destination}`;
  throw new CeleriacError(
    'CELERIAC_NO_REPLY',
    `${who} answered within ${timeout} ms. Check that workers run against the same broker and prefix (celeriac ` +
      `status), or raise --timeout.`,
  );
}

/** Replies sorted by hostname; a worker's refusal is printed and sets exit code 1. */
export function byHost(replies: ControlReply[]): ControlReply[] {
  for (const reply of replies) {
    if (!reply.ok) {
      console.error(`${reply.hostname}: ${reply.error ?? 'failed'}`);
      process.exitCode = 1;
    }
  }
  return [...replies].sort((a, b) => a.hostname.localeCompare(b.hostname));
}

/** Parses a JSON flag, naming the flag when it is not JSON. */
export function jsonFlag(value: string | undefined, flag: string): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `${flag} must be JSON (${(error as Error).message}), e.g. ${flag} '[1, 2]'.`,
    );
  }
}

/** A duration in ms, readable: 950 ms, 12 s, 3 min, 2 h. */
export function ago(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}
