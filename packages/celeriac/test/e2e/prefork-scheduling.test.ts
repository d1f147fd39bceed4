import { withFileGate } from './support/file-gate';
import { reserved } from './support/reserved';
import { useE2e } from './support/worker-process';

describe('celeriac worker: prefork scheduling', () => {
  const e2e = useE2e('e2e-prefork');

  it('spreads a burst over the children instead of queueing it on one', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2', '--pool', 'prefork']);
    await worker.ready();
    const client = fixture.app();
    const pids = await Promise.all(
      [1, 2, 3, 4].map(() => client.sendTask<number>('e2e.sleep', [200]).get({ timeout: 20_000 })),
    );
    expect(new Set(pids).size).toBe(2);
  });

  it('takes back short tasks queued behind a long one, so the other child runs them meanwhile', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2', '--pool', 'prefork']);
    await worker.ready();
    const client = fixture.app();
    // Short tasks first: the children learn that tasks are short and take several at a time.
    await Promise.all(
      Array.from({ length: 20 }, () => client.sendTask<number>('e2e.sleep', [0]).get({ timeout: 20_000 })),
    );
    const long = client.sendTask<string>('e2e.gate', ['long done', 'withdraw']);
    const shorts = Array.from({ length: 10 }, () => client.sendTask<number>('e2e.sleep', [0]));
    // Some of these were queued in the child that runs the long task: they finish before it does.
    const pids = await Promise.all(shorts.map((short) => short.get({ timeout: 20_000 })));
    expect(new Set(pids).size).toBe(1);
    expect(await long.state()).not.toBe('SUCCESS');
    await fixture.redis().lpush(`${fixture.prefix}:marks:withdraw`, 'open');
    await expect(long.get({ timeout: 20_000 })).resolves.toBe('long done');
  });

  it('neither runs nor counts toward --max-tasks-per-child a task revoked while it waited in a child', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'prefork', '--max-tasks-per-child', '2', '--prefetch', '4']);
    await worker.ready();
    const client = fixture.app();
    await withFileGate(async (gate, open) => {
      // The child takes the spinning task, and then the one behind it (its limit lets it hold two;
      // unless the spin had run 100 ms by then: the job then waits in the worker), and reads nothing
      // while it spins. The revoke reaches it behind the job, before the spin ends.
      const spinning = client.sendTask<number>('e2e.spinUntil', [1, gate]);
      await worker.started(spinning.id);
      const revoked = client.sendTask<number>('e2e.mark', [2, 'revoked']);
      const [third, fourth] = [0, 1].map(() => client.sendTask<number>('e2e.pid', []));
      await reserved(client, revoked, third!, fourth!);
      await revoked.revoke({ terminate: true });
      await worker.waitForLog(
        (line) => line.id === revoked.id && /revoked with terminate/.test(line.msg),
        'the revoke',
      );
      open();
      await expect(spinning.get({ timeout: 20_000 })).resolves.toBe(1);
      const [thirdPid, fourthPid] = await Promise.all([
        third!.get({ timeout: 20_000 }),
        fourth!.get({ timeout: 20_000 }),
      ]);
      await expect(revoked.state()).resolves.toBe('REVOKED');
      // It never ran: the child read the revoke before it began the task, and the worker never
      // took it as started.
      await expect(fixture.redis().get(`${fixture.prefix}:marks:revoked`)).resolves.toBeNull();
      expect(worker.lines.filter((line) => line.id === revoked.id && line.state === 'STARTED')).toEqual([]);
      // The first child ran two tasks, the spinning one and the third; the fourth ran in its successor.
      expect(thirdPid).not.toBe(fourthPid);
    });
  });

  it('gives a child no more than --max-tasks-per-child tasks, also under steady load', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'prefork', '--max-tasks-per-child', '2']);
    await worker.ready();
    const client = fixture.app();
    const pids = await Promise.all(
      Array.from({ length: 8 }, () => client.sendTask<number>('e2e.sleep', [20]).get({ timeout: 20_000 })),
    );
    const perChild = new Map<number, number>();
    for (const pid of pids) perChild.set(pid, (perChild.get(pid) ?? 0) + 1);
    expect(Math.max(...perChild.values())).toBeLessThanOrEqual(2);
    expect(perChild.size).toBeGreaterThanOrEqual(4);
  });
});
