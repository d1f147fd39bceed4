/** Waiting for the event loop's next turn, for work that should let pending I/O go first. */

/**
 * Resolves in the event loop's check phase (setImmediate). Called from a timer or a check callback,
 * that is after the loop polled for I/O; called from an I/O callback (where most code runs), it is
 * before the loop polls again: use {@link afterNextPoll} when what arrived meanwhile must be read.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Resolves once the event loop has polled for I/O, from wherever it is called: the second
 * setImmediate, queued from the first, runs in the next turn's check phase, after its poll.
 */
export async function afterNextPoll(): Promise<void> {
  await nextTurn();
  await nextTurn();
}
