/**
 * `celeriac worker` and `celeriac beat` serve other processes: on `memory://`, whose queues live in
 * this process alone, nothing another process sends would reach them, and its callers would wait
 * until they time out. Such a process is refused at start.
 */
import { CeleriacError, MemoryBroker } from '@celeriac/core';

/**
 * Throws when the app's broker is `memory://` (or a MemoryBroker object).
 * @throws CeleriacError `CELERIAC_INVALID_OPTION`, saying which broker to use instead.
 */
export function assertCrossProcessBroker(app: { options: { broker: unknown } }, command: 'worker' | 'beat'): void {
  const { broker } = app.options;
  const inProcess =
    (typeof broker === 'string' && broker.trim().toLowerCase().startsWith('memory:')) || broker instanceof MemoryBroker;
  if (!inProcess) return;
  throw new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `The app's broker is memory://, which lives inside one process: a \`celeriac ${command}\` process on it would ` +
      `never see what other processes send (their callers would time out). Give the app a broker other processes ` +
      `reach, e.g. broker: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0'; for one process, start the ` +
      `${command === 'worker' ? 'worker in code (app.worker())' : 'scheduler in code (app.beat.scheduler())'} in the ` +
      `process that sends.`,
  );
}
