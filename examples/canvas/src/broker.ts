/**
 * Picks the example's broker: Redis when one answers at the given URL, otherwise the in-process
 * memory broker, with the reason for the choice.
 */
import { createCanvasApp, type CanvasExample } from './app';

/** The app the example runs on, and what to print about it. */
export interface BrokerChoice {
  example: CanvasExample;
  /** What the example runs on, e.g. `Redis at 127.0.0.1:6379`. */
  description: string;
}

/**
 * Builds the app on Redis and asks the broker for a queue's counts, which needs one round trip; when
 * that fails (after ioredis's short reconnect budget, about 1.5 s), falls back to `memory://`.
 */
export async function chooseBroker(redisUrl: string): Promise<BrokerChoice> {
  const onRedis = createCanvasApp(redisUrl);
  const where = new URL(redisUrl).host;
  try {
    await onRedis.app.broker.stats('default');
    return { example: onRedis, description: `Redis at ${where}` };
  } catch (error) {
    await onRedis.app.close();
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { example: createCanvasApp('memory://'), description: `memory:// (no Redis at ${where}: ${reason})` };
  }
}
