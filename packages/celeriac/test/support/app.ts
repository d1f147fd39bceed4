/** The end-to-end fixture: a fresh memory-broker app per test, closed (with its workers) after it. */
import { captureLogs, type LogEntry } from '@celeriac/test-support';
import { Celeriac, type CeleriacOptions, type Worker, type WorkerOptions } from 'celeriac';

/** The app of the running test, and a way to start in-process workers on it. */
export interface AppFixture {
  /** The current test's app; only valid inside a test or its hooks. */
  readonly app: Celeriac;
  /** Starts an inline worker (concurrency 4 unless given) on the app; the app closes it. */
  startWorker(options?: WorkerOptions): Promise<Worker>;
  /** What the fixture's workers logged during the current test (they log here, not to the console). */
  readonly logs: LogEntry[];
}

/** Registers `beforeEach`/`afterEach` hooks that give every test of the block its own app. */
export function useApp(options: CeleriacOptions = {}): AppFixture {
  let current: Celeriac | undefined;
  const { logger, logs } = captureLogs();
  beforeEach(() => {
    logs.length = 0;
    current = new Celeriac(options);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const fixture: AppFixture = {
    logs,
    get app(): Celeriac {
      if (!current) throw new Error('useApp(): the app exists only inside a test');
      return current;
    },
    async startWorker(workerOptions: WorkerOptions = {}) {
      const worker = fixture.app.worker({ concurrency: 4, pool: 'inline', logger, ...workerOptions });
      await worker.start();
      return worker;
    },
  };
  return fixture;
}
