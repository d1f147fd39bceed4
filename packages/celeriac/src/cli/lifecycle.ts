/** What the long-running commands (`worker`, `beat`, `dashboard`) share: waiting for the broker, stop signals, exit. */
import type { Logger } from 'pino';
import { redact } from './redact';

/**
 * Runs `start`, logging every 5 s while the broker does not answer (and why, when `unreachable`
 * knows: the last failed connection attempt); on failure logs why and exits 1.
 */
export async function startOrExit(
  logger: Logger,
  app: { options: { broker: unknown }; close(): Promise<void> },
  what: string,
  start: () => Promise<void>,
  unreachable: () => string | undefined = () => undefined,
): Promise<void> {
  // A process waits for its broker rather than giving up (it may start before Redis); it says so.
  const waiting = setInterval(() => {
    const reason = unreachable();
    logger.warn(
      { broker: redact(app.options.broker), ...(reason === undefined ? {} : { reason }) },
      `Still waiting for the broker to answer${reason === undefined ? '' : ` (${reason})`}…`,
    );
  }, 5_000);
  try {
    await start();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    logger.fatal(
      { error: String(error), ...(typeof code === 'string' ? { code } : {}) },
      `The ${what} could not start: ${(error as Error).message}`,
    );
    await app.close().catch(() => undefined);
    process.exit(1);
  } finally {
    clearInterval(waiting);
  }
}

/** How often a process started through npm looks whether npm is still its parent (see onParentGone). */
const PARENT_CHECK_INTERVAL = 1_000;

/**
 * Calls `first` on the first SIGTERM or SIGINT, and `again` on every later one. Under npm (`npx
 * celeriac ...`, an `npm run` script), npm dying counts as a SIGTERM too: see {@link onParentGone}.
 */
export function onStopSignals(
  logger: Logger,
  first: (signal: NodeJS.Signals) => void,
  again: (signal: NodeJS.Signals) => void,
): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    (signals === 1 ? first : again)(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  if (process.env.npm_command === undefined) return;
  onParentGone(() => {
    logger.warn(
      { npm: process.env.npm_command },
      'npm, which started this process, has exited (stopped with a signal it does not pass on): stopping as on SIGTERM',
    );
    onSignal('SIGTERM');
  });
}

/**
 * Calls `gone` once this process's parent has exited. npm, stopped with SIGTERM, ends the shell it
 * ran the command in and exits, but does not pass the signal on: the command would run on under
 * PID 1. Node has no event for a parent's death (no prctl), so this compares `process.ppid` once a
 * second; the timer does not keep the process alive. Only for processes npm started: a worker
 * detached on purpose (`nohup`, `&`) outlives its shell.
 */
function onParentGone(gone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, PARENT_CHECK_INTERVAL);
  timer.unref();
}

/** Runs `close`, then exits 0 (logging `<What> exited cleanly`), or 1 when closing failed. */
export async function closeAndExit(logger: Logger, what: string, close: () => Promise<void>): Promise<void> {
  try {
    await close();
    logger.info(`${what} exited cleanly`);
    process.exit(0);
  } catch (error) {
    logger.error({ error: String(error) }, 'Shutdown failed');
    process.exit(1);
  }
}
