import { LeakTracker, type Leakable } from './support/leak-tracker';

function resource(name: string) {
  const item = {
    open: true,
    describe: () => name,
    isOpen: () => item.open,
    close: async () => void (item.open = false),
  };
  return item satisfies Leakable;
}

describe('LeakTracker (the check behind jest-setup.ts)', () => {
  it('fails with the test name and what was left open, after closing it', async () => {
    const tracker = new LeakTracker();
    tracker.testStarted('sends a task');
    const closed = resource('a closed app');
    const leaked = resource('a worker on [default]');
    tracker.track(closed);
    tracker.track(leaked);
    tracker.testEnded();
    await closed.close();
    await expect(tracker.check()).rejects.toThrow('Test "sends a task" left a worker on [default] open.');
    expect(leaked.open).toBe(false);
    await expect(tracker.check()).resolves.toBeUndefined();
  });

  it('passes when all a test opened was closed by the end of its hooks; ignores what opened outside', async () => {
    const tracker = new LeakTracker();
    const shared = resource('a shared app');
    tracker.track(shared);
    tracker.testStarted('closes its app');
    const own = resource('its app');
    tracker.track(own);
    tracker.testEnded();
    await own.close();
    await expect(tracker.check()).resolves.toBeUndefined();
    expect(shared.open).toBe(true);
  });
});
