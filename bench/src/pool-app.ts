/** The app module that pool children load in the pool benchmark: one no-op task. */
import { Celeriac } from 'celeriac';

/** The benchmark app; its prefix comes from the parent through the environment. */
export const app = new Celeriac({
  broker: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
  prefix: process.env.BENCH_PREFIX ?? 'bench-pools',
});

/** A no-op task. */
export const noop = app.task('bench.noop', (i: number) => i);
