/**
 * The quickstart's app and tasks. The broker is only known at run time (Redis if one answers, else
 * memory), so the app is built by a function instead of at import time as a real app would be.
 */
import 'reflect-metadata';
import { Celeriac, currentTask, task } from 'celeriac';

/** An error worth retrying: the flaky task throws it, and only it is retried (`autoretryFor`). */
export class TransientError extends Error {
  override name = 'TransientError';
}

/** Tasks written as class methods: `@task` marks them, `app.register(instance)` makes them handles. */
export class Invoices {
  constructor(private readonly currency: string) {}

  @task({ name: 'invoices.total' })
  total(amounts: number[]): string {
    const sum = amounts.reduce((a, b) => a + b, 0);
    return `${sum.toFixed(2)} ${this.currency}`;
  }
}

/** The key namespace of the demo, so it never touches another app's keys on a shared Redis. */
export const DEMO_PREFIX = process.env.CELERIAC_EXAMPLE_PREFIX ?? 'celeriac-demo';

/**
 * Creates the app on `broker` and registers the demo's tasks.
 * @throws CeleriacError `CELERIAC_UNSUPPORTED_URL` when this celeriac cannot use the broker URL.
 */
export function createDemoApp(broker: string) {
  const app = new Celeriac({ broker, prefix: DEMO_PREFIX, resultTtl: '10m' });

  /** A plain function task. */
  const add = app.task('math.add', (a: number, b: number) => a + b);

  /** Fails its first `failures` runs with a TransientError, then succeeds; retried with exponential backoff. */
  const flaky = app.task(
    'demo.flaky',
    (failures: number) => {
      const { retries } = currentTask();
      if (retries < failures) throw new TransientError(`attempt ${retries + 1} hit a transient fault`);
      return `succeeded on attempt ${retries + 1}`;
    },
    { retries: 3, retryDelay: '100ms', backoff: 'exponential', autoretryFor: [TransientError] },
  );

  /** Works through `items` steps, reporting a PROGRESS state after each one. */
  const crunch = app.task('demo.crunch', async (items: number) => {
    for (let done = 1; done <= items; done += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await currentTask().progress({ done, total: items });
    }
    return `crunched ${items} items`;
  });

  const invoices = app.register(new Invoices('EUR'));

  return { app, add, flaky, crunch, invoices };
}

/** The app and task handles of the demo. */
export type DemoApp = ReturnType<typeof createDemoApp>;
