/**
 * The example's app and its one task. Worker processes that "die" build it with `crashes: true`: their
 * copy of the task kills its own process mid-run, as an out-of-memory kill or a native crash would.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Celeriac, currentTask } from 'celeriac';

/** The queue the task goes to. */
export const QUEUE = 'reports';

/** Where the app connects and how its copy of the task behaves. */
export interface ExampleAppOptions {
  redisUrl: string;
  /** Key namespace, unique to one run of the example. */
  prefix: string;
  /** True in the worker processes that die while running the task. */
  crashes: boolean;
}

/** Builds the app: short leases (1 s) and at most two deliveries, so the example runs in seconds. */
export function createExampleApp(options: ExampleAppOptions) {
  const app = new Celeriac({
    broker: options.redisUrl,
    prefix: options.prefix,
    visibilityTimeout: '1s',
    maxDeliveries: 2,
    resultTtl: '10m',
  });
  const buildReport = app.task(
    'reports.build',
    async (month: string) => {
      if (options.crashes) {
        const task = currentTask();
        await sleep(100); // some work first (the STARTED state gets written meanwhile)
        console.log(
          `  worker ${process.pid}: running ${task.name}('${month}'), delivery ${task.deliveries}; this process dies ` +
            `now`,
        );
        process.kill(process.pid, 'SIGKILL');
      }
      return `report for ${month}: 42 rows`;
    },
    { queue: QUEUE },
  );
  return { app, buildReport };
}
