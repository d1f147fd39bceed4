/**
 * Jest setup for every test file: fails a test that leaves a started worker, or an app that opened
 * its broker or backend, unclosed (see LeakTracker). The failure shows on the next test, or in
 * `afterAll` for the last one, and names the test that leaked.
 */
import { AppRuntime } from '@celeriac/core/internal';
import { Worker } from '@celeriac/worker';
import { LeakTracker } from './leak-tracker';

const tracker = new LeakTracker();

const start = Worker.prototype.start;
Worker.prototype.start = async function trackedStart(this: Worker) {
  tracker.track({
    describe: () => `a worker on [${this.options.queues.join(', ')}]`,
    isOpen: () => this.state === 'running' || this.state === 'closing',
    close: () => this.close(),
  });
  return start.call(this);
};

const seen = new WeakSet<AppRuntime>();
for (const property of ['broker', 'backend'] as const) {
  const descriptor = Object.getOwnPropertyDescriptor(AppRuntime.prototype, property);
  const getter = descriptor?.get;
  if (!descriptor || !getter) throw new Error(`jest-setup: AppRuntime.prototype.${property} is no longer a getter`);
  Object.defineProperty(AppRuntime.prototype, property, {
    ...descriptor,
    get(this: AppRuntime) {
      const value: unknown = getter.call(this);
      if (!seen.has(this)) {
        seen.add(this);
        tracker.track({
          describe: () => `an app (prefix ${this.options.prefix})`,
          isOpen: () => !this.closed,
          close: () => this.close(),
        });
      }
      return value;
    },
  });
}

beforeEach(async () => {
  await tracker.check();
  tracker.testStarted(expect.getState().currentTestName ?? 'unnamed test');
});
afterEach(() => tracker.testEnded());
afterAll(() => tracker.check());
