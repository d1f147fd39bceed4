/** What the long-running commands (`worker`, `beat`) share: waiting for the broker, stop signals, exit. */
import type { Logger } from 'pino';
import { redact } from './redact';

/** Runs `start`, logging every 5 s while the broker does not answer; on failure logs why and exits 1. */
export async function startOrExit(logger: Logger, app: { options: { broker: unknown }; close(): Promise<void> }, what: string, start: () => Promise<void>): Promise<void> {
  // A process waits for its broker rather than giving up (it may start before Redis); it says so.
  const waiting = setInterval(() => logger.warn({ broker: redact(app.options.broker) }, 'Still waiting for the broker to answer…'), 5_000);
  try {
    await start();
  } catch (error) {
    logger.fatal({ error: String(error) }, `The ${what} could not start: ${(error as Error).message}`);
    await app.close().catch(() => undefined);
    process.exit(1);
  } finally {
    clearInterval(waiting);
  }
}

/** Calls `first` on the first SIGTERM or SIGINT, and `again` on every later one. */
export function onStopSignals(first: (signal: NodeJS.Signals) => void, again: (signal: NodeJS.Signals) => void): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    (signals === 1 ? first : again)(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
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
