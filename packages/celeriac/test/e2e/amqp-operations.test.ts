/**
 * Operations on RabbitMQ with real `celeriac worker` and `celeriac beat` processes (results, the
 * chord counter, revocations and the beat state on Redis): a chord of 1,000 run by two workers;
 * two schedulers, the leader killed with kill -9; a delayed task revoked while RabbitMQ holds it;
 * a prefork pool child killed with kill -9 under load.
 */
import { randomUUID } from 'node:crypto';
import { useTestVhost } from '@celeriac/test-support';
import {
  chord,
  TaskRevokedError,
  type Celeriac,
  type ChangeSubscription,
  type GroupResult,
  type Signature,
} from 'celeriac';
import { firedLines, killLeader, slotOf, untilFired } from './support/beat-cli';
import { useAmqpWorkers } from './support/amqp-workers';
import { withFileGate } from './support/file-gate';
import type { LogLine, WorkerProcess } from './support/worker-process';

const vhost = useTestVhost('e2e-ops');

/** A signature of a fixture task (the caller does not import the worker's code). */
function signature<R>(client: Celeriac, task: string, args: unknown[], immutable: boolean): Signature<R> {
  return client.signature<R>({ task, args, options: {}, immutable });
}

/** The log lines of these processes with `state`. */
function withState(processes: WorkerProcess[], state: string): LogLine[] {
  return processes.flatMap((running) => running.lines).filter((line) => line.state === state);
}

/** How often each value occurs in `values`, for those that occur more than once. */
function repeated(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return new Map([...counts].filter(([, count]) => count > 1));
}

describe('operations on RabbitMQ', () => {
  const { sender, worker, beat, tallied } = useAmqpWorkers('e2e-amqp-ops', () => vhost().url);

  it('a chord of 1,000: two workers run the header; the callback runs once with all 1,000 results', async () => {
    const workers = [worker(['-c', '4']), worker(['-c', '4'])];
    await Promise.all(workers.map((running) => running.ready()));
    const client = sender();
    const header = Array.from({ length: 1_000 }, (_, index) => signature<number>(client, 'e2e.add', [index, 1], true));
    const body = signature<{ count: number; distinct: number; sum: number }>(client, 'e2e.sum', [], false);
    const result = chord(header, body).applyAsync();
    // The results of 1 + 0, 1 + 1, ..., 1 + 999: a thousand distinct values, 1 + 2 + ... + 1000.
    await expect(result.get({ timeout: 30_000 })).resolves.toEqual({ count: 1_000, distinct: 1_000, sum: 500_500 });
    // Drained (SIGTERM), so every log line is in: each header task and the callback started once.
    for (const running of workers) running.signal('SIGTERM');
    for (const running of workers) await expect(running.exited).resolves.toEqual({ code: 0, signal: null });
    const members = (result.parent as GroupResult).ids;
    expect(members).toHaveLength(1_000);
    const started = withState(workers, 'STARTED').map((line) => String(line.id));
    expect(repeated(started)).toEqual(new Map());
    expect(members.filter((id) => !started.includes(id))).toEqual([]);
    expect(started.filter((id) => id === result.id)).toHaveLength(1);
    // Both workers took part: the header was shared, not run by one of them.
    for (const running of workers) expect(withState([running], 'STARTED').length).toBeGreaterThan(0);
    await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 0, active: 0 });
  }, 45_000);

  it('two schedulers: the leader fires each slot once; after kill -9 the standby fires on; none twice', async () => {
    const lease = ['--lease', '2s'];
    const first = beat([...lease, '--id', 'beat-a']);
    const firstReady = await first.ready();
    const second = beat([...lease, '--id', 'beat-b']);
    const secondReady = await second.ready();
    expect([firstReady.state, secondReady.state]).toEqual(['leading', 'standby']);

    await untilFired(first, 2); // one slot a second
    expect(firedLines(second)).toEqual([]);
    await killLeader(first, second, 2_000);
    second.signal('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });

    const logged = [...firedLines(first), ...firedLines(second)].map((line) => String(line.id));
    expect(repeated(logged)).toEqual(new Map());
    // Each firing is one message in RabbitMQ, each run by a worker now: the tally (each run's task
    // id) shows which slots were queued, and how often.
    const client = sender();
    const { ready: queued } = await client.broker.stats('default');
    const drain = worker(['-c', '4']);
    await drain.ready();
    // Every slot from the first firing to the last, one a second: none missing across the hand-over.
    const [firstSlot, lastSlot] = [Math.min(...logged.map(slotOf)), Math.max(...logged.map(slotOf))];
    const slots = Array.from({ length: (lastSlot - firstSlot) / 1_000 + 1 }, (_, i) => firstSlot + i * 1_000);
    expect(slots.length).toBeGreaterThanOrEqual(5);
    await Promise.all(slots.map((slot) => client.result(`beat:tick:${slot}`).get({ timeout: 20_000 })));
    drain.signal('SIGTERM');
    await expect(drain.exited).resolves.toEqual({ code: 0, signal: null });
    const runs = tallied();
    expect(repeated(runs)).toEqual(new Map());
    expect(runs.map(slotOf).sort((x, y) => x - y)).toEqual(slots);
    // What was queued all ran; every logged firing is among it, and at most the one in flight at the
    // kill went unlogged.
    expect(queued).toBe(runs.length);
    await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 0, active: 0 });
    expect(runs.length - logged.length).toBeLessThanOrEqual(1);
  });

  it('a delayed task revoked while RabbitMQ holds it never runs, and its record says REVOKED', async () => {
    const running = worker(['-c', '2']);
    await running.ready();
    const client = sender();
    const revoked = client.sendTask<string>('e2e.tally', ['revoked'], { countdown: 2_000 });
    // The same countdown, not revoked: it runs, so the worker did see the delayed messages come due.
    const kept = client.sendTask<string>('e2e.tally', ['kept'], { countdown: 2_000 });
    await Promise.all([revoked.sent, kept.sent]);
    await client.revoke(revoked.id);
    // Revoked before it was due: both still wait in the delay levels, and the worker holds neither.
    await expect(client.broker.stats('default')).resolves.toMatchObject({ delayed: 2, active: 0 });
    const refused = await revoked.get({ timeout: 20_000, propagate: false });
    expect(refused).toBeInstanceOf(TaskRevokedError);
    await expect(kept.get({ timeout: 20_000 })).resolves.toBe('kept');
    await expect(revoked.record()).resolves.toMatchObject({ state: 'REVOKED', meta: { reason: 'revoked' } });
    running.signal('SIGTERM');
    await expect(running.exited).resolves.toEqual({ code: 0, signal: null });
    expect(tallied()).toEqual(['kept']);
    expect(running.lines.filter((line) => line.id === revoked.id && line.state === 'STARTED')).toEqual([]);
    await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 0, active: 0 });
  });

  it('a prefork pool child killed with kill -9 under load: nothing lost; only the task it ran runs twice', async () => {
    await withFileGate(async (gate, open) => {
      const client = sender();
      const held = randomUUID();
      // Listen before sending: the held task reports the pid of the child running it.
      let stopListening: ChangeSubscription | undefined;
      const childPid = new Promise<number>((resolve) => {
        stopListening = client.backend.onChange?.(held, (record) => {
          if (record.state === 'PROGRESS') resolve((record.meta as { pid: number }).pid);
        });
      });
      if (!stopListening) throw new Error('the Redis backend reports state changes');
      await stopListening.ready;
      const heldResult = client.sendTask<string>('e2e.held-tally', ['held', gate], { taskId: held });
      // Tasks that tally, then keep their child busy for 2 ms: the load the other child carries.
      const results = Array.from({ length: 500 }, (_, i) => client.sendTask<number>('e2e.spin-tally', [i, 2]));
      await Promise.all([heldResult, ...results].map((result) => result.sent));
      const running = worker(['-c', '2', '--pool', 'prefork']);
      await running.ready();
      const pid = await childPid;
      stopListening();
      await results[100]!.get({ timeout: 20_000 });
      expect(running.children().map((child) => child.pid)).toContain(pid);
      process.kill(pid, 'SIGKILL');
      await running.waitForLog((line) => line.child === pid && /exited/.test(String(line.reason)), 'the replacement');
      await running.waitForLog((line) => line.id === held && line.state === 'REDELIVERED', 'the redelivery');
      open();
      await expect(heldResult.get({ timeout: 20_000 })).resolves.toBe('held');
      await expect(Promise.all(results.map((result) => result.get({ timeout: 30_000 })))).resolves.toEqual(
        results.map((_, i) => i),
      );
      running.signal('SIGTERM');
      await expect(running.exited).resolves.toEqual({ code: 0, signal: null });
      const runs = tallied();
      expect(results.map((_, i) => String(i)).filter((value) => !runs.includes(value))).toEqual([]);
      // At least once, and no more: the task the child ran when it was killed ran again (a child runs
      // one task at a time); the jobs queued in the child that it had not begun ran on another, once.
      expect(repeated(runs)).toEqual(new Map([['held', 2]]));
      expect(withState([running], 'REDELIVERED').map((line) => line.id)).toEqual([held]);
      expect(
        running.lines.filter((line) => line.id === held && line.state === 'STARTED').map((line) => line.delivery),
      ).toEqual([1, 2]);
      await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 0, active: 0, dead: 0 });
    });
  });
});
