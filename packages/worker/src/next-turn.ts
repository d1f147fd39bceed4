/** Waiting for the event loop's next turn, for work that should let pending I/O go first. */

/** Resolves after the event loop's next poll for I/O (setImmediate). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
