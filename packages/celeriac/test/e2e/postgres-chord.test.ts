/**
 * A chord of 1,000 on PostgreSQL alone, run by two `celeriac worker` processes: the chord counter
 * lives in the results backend on the same database, and the callback runs once, with every result.
 */
import { chord, type Celeriac, type GroupResult, type Signature } from 'celeriac';
import type { WorkerProcess } from './support/worker-process';
import { usePostgresE2e } from './support/postgres-e2e';

/** A signature of a fixture task (the caller does not import the worker's code). */
function signature<R>(client: Celeriac, task: string, args: unknown[], immutable: boolean): Signature<R> {
  return client.signature<R>({ task, args, options: {}, immutable });
}

/** How often the workers logged the start of each task id. */
function starts(workers: WorkerProcess[]): Map<unknown, number> {
  const counts = new Map<unknown, number>();
  for (const line of workers.flatMap((worker) => worker.lines))
    if (line.state === 'STARTED') counts.set(line.id, (counts.get(line.id) ?? 0) + 1);
  return counts;
}

describe('celeriac worker on PostgreSQL: a chord of 1,000', () => {
  const e2e = usePostgresE2e('e2e_chord');

  it('two workers run the header; the callback runs once with all 1,000 results', async () => {
    const { prefix, spawn, app, query } = e2e();
    const workers = [spawn('worker', ['-c', '2']), spawn('worker', ['-c', '2'])];
    await Promise.all(workers.map((worker) => worker.ready()));
    const client = app();
    const header = Array.from({ length: 1_000 }, (_, index) => signature<number>(client, 'pg.add', [index, 1], true));
    const result = chord(header, signature<{ count: number; sum: number }>(client, 'pg.total', [], false)).applyAsync();
    // 1 + 2 + ... + 1000
    await expect(result.get({ timeout: 45_000 })).resolves.toEqual({ count: 1_000, sum: 500_500 });
    // Drained (SIGTERM), so every log line is in: each header task and the callback started once.
    for (const worker of workers) worker.signal('SIGTERM');
    for (const worker of workers) await expect(worker.exited).resolves.toEqual({ code: 0, signal: null });
    const members = (result.parent as GroupResult).ids;
    expect(members).toHaveLength(1_000);
    const started = starts(workers);
    expect(members.filter((id) => started.get(id) !== 1)).toEqual([]);
    expect(started.get(result.id)).toBe(1);
    await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 0, active: 0, dead: 0 });
    // The results and the chord's counter are rows of the test's own schema.
    const [stored] = await query<{ count: string }>(`SELECT count(*) FROM "${prefix}".results`);
    expect(Number(stored?.count)).toBeGreaterThanOrEqual(1_001);
  }, 60_000);
});
