/** What {@link reserved} reads of a client app. */
interface QueueStats {
  broker: { stats(queue: string): Promise<{ ready: number }> };
}

/**
 * Resolves once a worker reserved every task these handles sent (none waits ready in the default
 * queue): a worker hands a job to its pool as it reads the reservation, so before it reads a signal
 * or a revoke sent after this resolved.
 */
export async function reserved(client: QueueStats, ...sent: Array<{ sent: Promise<void> }>): Promise<void> {
  await Promise.all(sent.map((result) => result.sent));
  while ((await client.broker.stats('default')).ready > 0) {
    // Each look is a round trip to Redis: the reservation comes within a few.
  }
}
