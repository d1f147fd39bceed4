/**
 * The example's app module, loaded by `celeriac beat -A` and by the demo: a task that beat fires
 * every second, and a nightly one at 03:00 Shanghai time. Keys go under CELERIAC_EXAMPLE_PREFIX.
 */
import { Celeriac, crontab, every } from 'celeriac';

export const app = new Celeriac({
  broker: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
  prefix: process.env.CELERIAC_EXAMPLE_PREFIX ?? 'celeriac-example-beat',
  resultTtl: '10m',
});

/** Says who asked for it; the worker runs it once per slot. */
export const heartbeat = app.task('demo.heartbeat', (source: string) => `heartbeat from ${source}`);

/** A stand-in for nightly maintenance. */
export const cleanup = app.task('demo.cleanup', () => 'cleaned up');

// Every second; after a hand-over every missed slot fires too ('all'), so none goes missing.
app.schedule('heartbeat', { task: heartbeat, schedule: every('1s'), args: ['code'], catchUp: 'all' });
// 03:00 in Shanghai (19:00 UTC the day before): listed by the demo, not waited for.
app.schedule('nightly-cleanup', { task: cleanup, schedule: crontab('0 3 * * *', { tz: 'Asia/Shanghai' }) });
