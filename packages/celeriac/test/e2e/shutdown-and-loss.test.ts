import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFileGate } from './support/file-gate';
import { reserved } from './support/reserved';
import { useE2e, WorkerProcess } from './support/worker-process';

/**
 * Runs `body` with a tally file of its own, which the `e2e.tally` task appends each run's value to
 * (`env` points the workers at it; `runs()` reads it back), and removes the file afterwards.
 */
async function withTally(body: (env: NodeJS.ProcessEnv, runs: () => string[]) => Promise<void>): Promise<void> {
  const tally = join(tmpdir(), `celeriac-e2e-tally-${randomBytes(4).toString('hex')}`);
  try {
    await body({ CELERIAC_TEST_TALLY_FILE: tally }, () => readFileSync(tally, 'utf8').trim().split('\n'));
  } finally {
    rmSync(tally, { force: true });
  }
}

describe('celeriac worker: shutdown and lost workers', () => {
  const e2e = useE2e('e2e-stop');

  it('on SIGTERM, finishes the running task, hands prefetched ones back, and exits 0', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--prefetch', '2']);
    await worker.ready();
    const client = fixture.app();
    const running = client.sendTask<string>('e2e.gate', ['done', 'running']);
    const waiting = [0, 1].map(() => client.sendTask('e2e.sleep', [0]));
    await worker.started(running.id);
    worker.signal('SIGTERM');
    // The running task ends only once the others went back.
    await worker.waitForLog((line) => line.msg === 'Handing prefetched tasks back to the queue', 'the hand-back');
    await fixture.redis().lpush(`${fixture.prefix}:marks:running`, 'open');
    await expect(worker.exited).resolves.toEqual({ code: 0, signal: null });
    await expect(running.state()).resolves.toBe('SUCCESS');
    await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 2, active: 0 });
    // Nothing was lost: another worker runs the two it handed back.
    const next = workers.start(['-c', '2']);
    await next.ready();
    await expect(Promise.all(waiting.map((result) => result.get({ timeout: 20_000 })))).resolves.toHaveLength(2);
  });

  it.each(['prefork', 'fork'] as const)(
    "--pool %s: on Ctrl-C (SIGINT to the worker's process group), finishes the running task and exits 0",
    async (pool) => {
      const { fixture, workers } = e2e();
      const worker = workers.start(['-c', '1', '--pool', pool]);
      await worker.ready();
      const client = fixture.app();
      const running = client.sendTask<number>('e2e.sleep', [600]);
      await worker.started(running.id);
      worker.signalGroup('SIGINT');
      await expect(worker.exited).resolves.toEqual({ code: 0, signal: null });
      await expect(running.state()).resolves.toBe('SUCCESS');
    },
  );

  it('on SIGTERM, takes back the jobs queued in prefork children without running any of them twice', async () => {
    const { fixture, workers } = e2e();
    await withTally(async (env, tallied) => {
      const client = fixture.app();
      // Tiny tasks that never wait: the children hold dozens each and run them back to back.
      const results = Array.from({ length: 4_000 }, (_, i) => client.sendTask<number>('e2e.tally', [i]));
      // Three workers in turn are stopped in the middle of the stream.
      for (const upTo of [1_000, 2_000, 3_000]) {
        const worker = workers.start(['-c', '2', '--pool', 'prefork'], env);
        await worker.ready();
        await results[upTo]!.get({ timeout: 20_000 });
        worker.signal('SIGTERM');
        await expect(worker.exited).resolves.toEqual({ code: 0, signal: null });
      }
      const next = workers.start(['-c', '2', '--pool', 'prefork'], env);
      await next.ready();
      await Promise.all(results.map((result) => result.get({ timeout: 20_000 })));
      const runs = tallied();
      const twice = runs.filter((value, index) => runs.indexOf(value) !== index);
      expect({ runs: runs.length, twice }).toEqual({ runs: 4_000, twice: [] });
    });
  }, 60_000);

  it('on SIGTERM, hands back a job its child gives back just as the job before it ends', async () => {
    const { fixture, workers } = e2e();
    const client = fixture.app();
    // Tasks that spin 1 ms, so the child holds several. It reads the worker's take-back between two
    // of them, when the worker has already counted the next one as begun.
    const results = Array.from({ length: 300 }, (_, i) => client.sendTask<number>('e2e.spin', [i, 1]));
    for (let round = 0; round < 3; round += 1) {
      const worker = workers.start(['-c', '1', '--pool', 'prefork']);
      await worker.ready();
      await worker.started(results[100 * round + 20]!.id);
      worker.signal('SIGTERM');
      await expect(worker.exited).resolves.toEqual({ code: 0, signal: null });
      // Every job the worker held went back to the queue or was settled: none waits for its lease.
      await expect(client.broker.stats('default')).resolves.toMatchObject({ active: 0 });
      // Nor does its log leave a task started: a job given back after it was counted as begun says so.
      const lastState = new Map<string, unknown>();
      for (const line of worker.lines)
        if (typeof line.id === 'string' && line.state !== undefined) lastState.set(line.id, line.state);
      expect([...lastState].filter(([, state]) => state === 'STARTED')).toEqual([]);
    }
  }, 60_000);

  it('on SIGTERM, hands back a job queued behind a task outlasting the take-back; its child never runs', async () => {
    const { fixture, workers } = e2e();
    await withTally(async (env, tallied) => {
      await withFileGate(async (gate, open) => {
        const worker = workers.start(['-c', '1', '--pool', 'prefork'], env);
        await worker.ready();
        const client = fixture.app();
        // The child holds the spinning task and one sent to it after the spin began (unless the spin
        // had run 100 ms by then: the job then waits in the worker), and reads nothing while it
        // spins: the worker's take-back (1 s) runs out, and the queued job stays the child's. Once
        // the spin is over, the child reads the take-back before it begins the job, and gives it
        // back; only then does it go back to the queue.
        const spinning = client.sendTask<number>('e2e.spinUntil', [1, gate]);
        await worker.started(spinning.id);
        const queued = client.sendTask<number>('e2e.tally', [2]);
        await reserved(client, queued);
        worker.signal('SIGTERM');
        await worker.waitForLog(
          (line) => /queued in busy pool children|^Handing prefetched tasks back/.test(line.msg),
          'the end of the take-back',
        );
        open();
        await expect(worker.exited).resolves.toEqual({ code: 0, signal: null });
        await expect(spinning.state()).resolves.toBe('SUCCESS');
        expect(worker.lines.filter((line) => line.id === queued.id && line.state === 'STARTED')).toEqual([]);
        const next = workers.start(['-c', '1', '--pool', 'prefork'], env);
        await next.ready();
        await expect(queued.get({ timeout: 20_000 })).resolves.toBe(2);
        expect(tallied()).toEqual(['2']);
      });
    });
  });

  it('when a worker is killed with kill -9 mid-task, another worker completes the task', async () => {
    const { fixture, workers } = e2e();
    const env = { CELERIAC_TEST_VISIBILITY: '2s' };
    const doomed: WorkerProcess = workers.start(['-c', '1'], env);
    await doomed.ready();
    const client = fixture.app();
    const result = client.sendTask<number>('e2e.sleep', [300]);
    await doomed.started(result.id);
    doomed.signal('SIGKILL');
    await doomed.exited;
    const survivor = workers.start(['-c', '1'], env);
    await survivor.ready();
    const pid = await result.get({ timeout: 20_000 });
    expect(pid).not.toBe(doomed.child.pid);
    // Once the survivor has drained and exited, its ack is written: nothing is left held or dead.
    survivor.signal('SIGTERM');
    await expect(survivor.exited).resolves.toEqual({ code: 0, signal: null });
    await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, active: 0, dead: 0 });
  });

  it('stops with a clear message when the app module cannot be loaded or exports no app', async () => {
    const missing = new WorkerProcess(['-A', 'does/not/exist.js'], {});
    await expect(missing.exited).resolves.toMatchObject({ code: 2 });
    expect(missing.lines.map((line) => line.msg).join('\n')).toMatch(/was not found/);
    const noApp = new WorkerProcess(['-A', 'package.json'], {});
    await expect(noApp.exited).resolves.toMatchObject({ code: 2 });
    expect(noApp.lines.map((line) => line.msg).join('\n')).toMatch(/exports no Celeriac app/);
  });
});
