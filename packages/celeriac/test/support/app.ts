/**
 * The behaviour fixture: a fresh app per test on the broker `CELERIAC_TEST_BROKER` names (memory by
 * default, or Redis under a fresh prefix), closed (with its workers) and cleaned up after it.
 */
import { captureLogs, testBrokerPlace, type LogEntry, type TestBrokerPlace } from '@celeriac/test-support';
import { Celeriac, type Broker, type CeleriacOptions, type Worker, type WorkerOptions } from 'celeriac';

/** The app of the running test, and a way to start in-process workers on it. */
export interface AppFixture {
  /** The current test's app; only valid inside a test or its hooks. */
  readonly app: Celeriac;
  /** Starts an inline worker (concurrency 4 unless given) on the app; the app closes it. */
  startWorker(options?: WorkerOptions): Promise<Worker>;
  /** What the fixture's workers logged during the current test (they log here, not to the console). */
  readonly logs: LogEntry[];
  /**
   * The test's queues as seen from a broker that still answers once `app` closed: the app's own on
   * `memory://` (it answers after close), a second app's on Redis (closed after the test).
   */
  observer(): Broker;
}

/** Registers `beforeEach`/`afterEach` hooks that give every test of the block its own app. */
export function useApp(options: CeleriacOptions = {}): AppFixture {
  let current: Celeriac | undefined;
  let place: TestBrokerPlace | undefined;
  let peer: Celeriac | undefined;
  const { logger, logs } = captureLogs();
  beforeEach(() => {
    logs.length = 0;
    place = testBrokerPlace('behaviour');
    current = new Celeriac({ ...place.options, ...options });
  });
  afterEach(async () => {
    await current?.close();
    await peer?.close();
    await place?.cleanup();
    current = undefined;
    peer = undefined;
  });
  const fixture: AppFixture = {
    logs,
    get app(): Celeriac {
      if (!current) throw new Error('useApp(): the app exists only inside a test');
      return current;
    },
    observer() {
      if (fixture.app.options.broker === 'memory://') return fixture.app.broker;
      peer ??= new Celeriac({ ...place?.options, ...options });
      return peer.broker;
    },
    async startWorker(workerOptions: WorkerOptions = {}) {
      const worker = fixture.app.worker({ concurrency: 4, pool: 'inline', logger, ...workerOptions });
      await worker.start();
      return worker;
    },
  };
  return fixture;
}
