/**
 * Finds tests that leave workers or app connections open. Things opened during a test must be
 * closed by the end of that test's `afterEach` hooks; the check runs before the next test (and
 * after the last), so it sees the state after every hook of the test that opened them.
 */

/** Something a test may leave open. */
export interface Leakable {
  /** Names it in the failure message, e.g. `a worker on [default]`. */
  describe(): string;
  isOpen(): boolean;
  close(): Promise<void>;
}

/** Tracks what each test opens, and reports (and closes) what it left open. */
export class LeakTracker {
  private opened: Leakable[] = [];
  private suspects: Leakable[] = [];
  private testName: string | undefined;
  private suspectTest: string | undefined;

  /** A test (with its `beforeEach` hooks) starts; what opens from now on belongs to it. */
  testStarted(name: string): void {
    this.testName = name;
  }

  /** Records something opened; outside a test (e.g. in `beforeAll`) nothing is tracked. */
  track(item: Leakable): void {
    if (this.testName !== undefined) this.opened.push(item);
  }

  /** The test's body is over; its `afterEach` hooks may still close what it opened. */
  testEnded(): void {
    this.suspects.push(...this.opened);
    this.suspectTest = this.testName;
    this.opened = [];
    this.testName = undefined;
  }

  /** Throws when the last ended test left something open, after closing it so later tests run clean. */
  async check(): Promise<void> {
    const leaked = this.suspects.filter((item) => item.isOpen());
    this.suspects = [];
    if (leaked.length === 0) return;
    await Promise.allSettled(leaked.map((item) => item.close()));
    throw new Error(
      `Test "${this.suspectTest}" left ${leaked.map((item) => item.describe()).join(', ')} open. ` +
        'Close apps (app.close() also closes their workers) in the test or its afterEach.',
    );
  }
}
