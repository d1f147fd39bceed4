/** Fixture bookkeeping shared by the conformance suites: what a test opens is cleaned up after it. */

/**
 * Wraps `open` so every fixture it returns is cleaned up in the `afterEach` of the enclosing
 * `describe`. Call it inside a `describe` block.
 */
export function cleanedUpAfterEach<A extends unknown[], F extends { cleanup(): Promise<void> }>(
  open: (...args: A) => Promise<F>,
): (...args: A) => Promise<F> {
  const opened: F[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((fixture) => fixture.cleanup()));
  });
  return async (...args: A) => {
    const fixture = await open(...args);
    opened.push(fixture);
    return fixture;
  };
}
