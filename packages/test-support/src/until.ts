/**
 * Waiting for a condition that no event announces (a server's state, a worker's heartbeat record):
 * re-checked every 100 ms until it holds, failing with `what` after `ms`.
 */
export async function untilTrue(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Waited ${ms} ms for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
