/**
 * The app module of the operations example: `celeriac worker -A dist/tasks.js` loads it, and so do
 * the `celeriac events` and `celeriac failed` commands and the demo that sends the tasks.
 */
import { Celeriac } from 'celeriac';
import { Redis } from 'ioredis';

/** The Redis database the example uses. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** Every key of the example starts with this; the demo sets a fresh one per run. */
export const PREFIX = process.env.CELERIAC_EXAMPLE_PREFIX ?? 'celeriac-example-operations';

// events: true keeps the event log that `celeriac events` reads (it is off by default).
export const app = new Celeriac({ broker: REDIS_URL, prefix: PREFIX, events: true });

/** The key that says a product is in stock (the demo sets it before retrying the failed task). */
export function stockKey(product: string): string {
  return `${PREFIX}:stock:${product}`;
}

/** Adds two numbers: the task that always succeeds. */
export const add = app.task('math.add', (a: number, b: number) => a + b);

/** Adds up a list: the callback of the dashboard's example chord. */
export const sum = app.task('math.sum', (values: number[]) => values.reduce((total, value) => total + value, 0));

/** Ships an order; fails (after one retry) while its product is out of stock. */
export const ship = app.task(
  'orders.ship',
  async (order: string, product: string) => {
    const redis = new Redis(REDIS_URL);
    try {
      if ((await redis.get(stockKey(product))) === null) throw new Error(`${product} is out of stock`);
      return `order ${order} shipped`;
    } finally {
      await redis.quit();
    }
  },
  { retries: 1, retryDelay: '100ms' },
);
