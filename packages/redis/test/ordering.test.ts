import { RedisFixture } from '@celeriac/test-support';

describe('ordering on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('order')));
  afterEach(() => fixture.cleanup());

  it('runs higher priority first, and equal priorities first in first out', async () => {
    const app = fixture.app();
    const ran: string[] = [];
    const record = app.task('order.record', (label: string) => void ran.push(label));
    const calls: Array<[string, number]> = [
      ['low-1', 0],
      ['high-1', 9],
      ['mid-1', 5],
      ['low-2', 0],
      ['high-2', 9],
      ['mid-2', 5],
    ];
    const results = calls.map(([label, priority]) => record.applyAsync([label], { priority }));
    await Promise.all(results.map((result) => result.sent));
    await app.worker({ concurrency: 1 }).start();
    await Promise.all(results);
    expect(ran).toEqual(['high-1', 'high-2', 'mid-1', 'mid-2', 'low-1', 'low-2']);
  });

  it('drains earlier queues first', async () => {
    const app = fixture.app();
    const ran: string[] = [];
    const record = app.task('order.queue', (label: string) => void ran.push(label));
    const results = [
      record.applyAsync(['default-1'], { queue: 'default' }),
      record.applyAsync(['high-1'], { queue: 'high' }),
      record.applyAsync(['default-2'], { queue: 'default' }),
      record.applyAsync(['high-2'], { queue: 'high' }),
    ];
    await Promise.all(results.map((result) => result.sent));
    await app.worker({ concurrency: 1, queues: ['high', 'default'] }).start();
    await Promise.all(results);
    expect(ran).toEqual(['high-1', 'high-2', 'default-1', 'default-2']);
  });

  it('runs delayed tasks in due order, and not before they are due', async () => {
    const app = fixture.app();
    const ran: Array<{ label: string; late: number }> = [];
    const record = app.task(
      'order.delayed',
      (label: string, due: number) => void ran.push({ label, late: Date.now() - due }),
    );
    await app.worker({ concurrency: 4 }).start();
    const now = Date.now();
    const countdowns: Array<[string, number]> = [
      ['c', 450],
      ['a', 150],
      ['d', 600],
      ['b', 300],
    ];
    await Promise.all(countdowns.map(([label, ms]) => record.applyAsync([label, now + ms], { countdown: ms })));
    expect(ran.map((entry) => entry.label)).toEqual(['a', 'b', 'c', 'd']);
    for (const entry of ran) expect(entry.late).toBeGreaterThanOrEqual(0);
  });
});
