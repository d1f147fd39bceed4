/**
 * Issue 6 end to end: workflows run by real `celeriac worker` processes (prefork children) on real
 * Redis, checked from this process (the caller). Tasks are the fixture app's (fixtures/app.js); the
 * `e2e.mark` and `e2e.countedSum` tasks count their runs in Redis keys under the test's prefix.
 */
import { randomUUID } from 'node:crypto';
import {
  chain,
  chord,
  group,
  GroupResult,
  TaskFailedError,
  type AsyncResult,
  type Celeriac,
  type Signature,
} from 'celeriac';
import type { RedisFixture } from '@celeriac/test-support';
import { useE2e, type WorkerProcess } from './support/worker-process';

/** A partial signature of a fixture task (the caller does not import the worker's code). */
function s<R = number>(client: Celeriac, task: string, ...args: unknown[]): Signature<R> {
  return client.signature<R>({ task, args, options: {}, immutable: false });
}

/** An immutable signature of a fixture task. */
function si<R = number>(client: Celeriac, task: string, ...args: unknown[]): Signature<R> {
  return client.signature<R>({ task, args, options: {}, immutable: true });
}

/** How often mark `name` was set by `e2e.mark` / `e2e.countedSum` (0 when never). */
async function marks(fixture: RedisFixture, name: string): Promise<number> {
  return Number((await fixture.redis().get(`${fixture.prefix}:marks:${name}`)) ?? 0);
}

/** True if the worker logged a start of task `id`. */
function ran(worker: WorkerProcess, id: string): boolean {
  return worker.lines.some((line) => line.id === id && line.state === 'STARTED');
}

/** Stops the workers with SIGTERM (they drain) and waits until each exited cleanly. */
async function drain(...workers: WorkerProcess[]): Promise<void> {
  for (const worker of workers) worker.signal('SIGTERM');
  for (const worker of workers) await expect(worker.exited).resolves.toEqual({ code: 0, signal: null });
}

/** The rejection of `promise` (fails if it resolves). */
async function failureOf(promise: PromiseLike<unknown>): Promise<TaskFailedError> {
  const outcome = await Promise.resolve(promise).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(TaskFailedError);
  return outcome.error as TaskFailedError;
}

/** Resolves with the first of `workers` that logged the start of `id` (the others' waits are dropped). */
function whichStarted(workers: WorkerProcess[], id: string): Promise<WorkerProcess> {
  const waits = workers.map((worker) => worker.started(id).then(() => worker));
  for (const wait of waits) wait.catch(() => undefined);
  return Promise.race(waits);
}

describe('celeriac worker: canvas (chain, group, chord, callbacks)', () => {
  const e2e = useE2e('e2e-canvas');
  const TIMEOUT = { timeout: 20_000 };

  /**
   * Starts `count` workers (prefork, two children each unless `args` say otherwise), ready, and a client app; `worker`
   * is the first.
   */
  async function setUp(count: number, options: { args?: string[]; env?: NodeJS.ProcessEnv } = {}) {
    const { fixture, workers } = e2e();
    const started = Array.from({ length: count }, () => workers.start(options.args ?? ['-c', '2'], options.env));
    await Promise.all(started.map((worker) => worker.ready()));
    return { fixture, client: fixture.app(), workers: started, worker: started[0] as WorkerProcess };
  }

  describe('results across processes', () => {
    it('chain of 3: each result feeds the next; the caller walks the parents', async () => {
      const { client, worker } = await setUp(1);
      const result = chain(s(client, 'e2e.add', 2, 2), s(client, 'e2e.add', 4), s(client, 'e2e.add', 8)).applyAsync();
      await expect(result.get(TIMEOUT)).resolves.toBe(16);
      const middle = result.parent as AsyncResult<number>;
      const first = middle.parent as AsyncResult<number>;
      expect(first.parent).toBeUndefined();
      await expect(middle.get(TIMEOUT)).resolves.toBe(8);
      await expect(first.get(TIMEOUT)).resolves.toBe(4);
      // Each step ran in the worker, once (read the logs once it drained: a log line may trail the result).
      await drain(worker);
      for (const step of [first, middle, result])
        expect(worker.lines.filter((line) => line.id === step.id && line.state === 'SUCCESS')).toHaveLength(1);
    });

    it('group of 100 over two workers: values in order, completedCount, and a handle from another client', async () => {
      const { fixture, client, workers: pair } = await setUp(2);
      const result = group(Array.from({ length: 100 }, (_, index) => si(client, 'e2e.add', index, index))).applyAsync();
      expect(result).toBeInstanceOf(GroupResult);
      expect(result.ids[7]).toBe(`${result.id}:7`);
      const expected = Array.from({ length: 100 }, (_, index) => 2 * index);
      await expect(result.get(TIMEOUT)).resolves.toEqual(expected);
      await expect(result.completedCount()).resolves.toBe(100);
      await expect(result.ready()).resolves.toBe(true);
      // Another process knows the group by its id and size only.
      const other = fixture.app();
      await expect(other.groupResult<number[]>(result.id, 100).get(TIMEOUT)).resolves.toEqual(expected);
      // Every member ran exactly once, in one worker or the other.
      await drain(...pair);
      const runs = pair.flatMap((worker) =>
        worker.lines.filter((line) => line.state === 'SUCCESS').map((line) => String(line.id)),
      );
      expect(runs.sort()).toEqual([...result.ids].sort());
    });

    it('chord of 1,000 header tasks over two workers: the callback gets every result, once', async () => {
      const { fixture, client, workers: pair } = await setUp(2);
      const header = Array.from({ length: 1_000 }, (_, index) => si(client, 'e2e.add', index, 1));
      const result = chord(header, s(client, 'e2e.countedSum', 'callback')).applyAsync();
      // 1 + 2 + ... + 1000
      await expect(result.get({ timeout: 30_000 })).resolves.toBe(500_500);
      await drain(...pair);
      await expect(marks(fixture, 'callback')).resolves.toBe(1);
      expect(pair.filter((worker) => ran(worker, result.id))).toHaveLength(1);
    });

    it('a chain containing a group containing a chain', async () => {
      const { client, workers: pair } = await setUp(2);
      const inner = chain(s(client, 'e2e.add', 10), s(client, 'e2e.add', 100));
      const workflow = chain(
        s(client, 'e2e.add', 1, 1),
        group([inner, s(client, 'e2e.add', 1000)]),
        s(client, 'e2e.sum'),
        s(client, 'e2e.add', 5),
      );
      const result = workflow.applyAsync();
      // 2 -> [2 + 10 + 100, 2 + 1000] -> 1114 -> 1119
      await expect(result.get(TIMEOUT)).resolves.toBe(1119);
      const sum = result.parent as AsyncResult<number>;
      await expect(sum.get(TIMEOUT)).resolves.toBe(1114);
      const members = sum.parent as GroupResult<[number, number]>;
      expect(members).toBeInstanceOf(GroupResult);
      await expect(members.get(TIMEOUT)).resolves.toEqual([112, 1002]);
      await expect((members.parent as AsyncResult<number>).get(TIMEOUT)).resolves.toBe(2);
      // Six tasks, each run once.
      await drain(...pair);
      const runs = pair.flatMap((worker) =>
        worker.lines.filter((line) => line.state === 'SUCCESS').map((line) => line.id),
      );
      expect(runs).toHaveLength(6);
      expect(new Set(runs).size).toBe(6);
    });
  });

  describe('failures and callbacks', () => {
    it('a failed chain step rejects the chain with its error, calls the errback; later steps never run', async () => {
      const { fixture, client, worker } = await setUp(1);
      const errbackId = randomUUID();
      const workflow = chain(
        s(client, 'e2e.add', 1, 1),
        s(client, 'e2e.fail', 'step 2'),
        s(client, 'e2e.mark', 'after-failure'),
      );
      const result = workflow.onError(s(client, 'e2e.errback').set({ taskId: errbackId })).applyAsync();
      const failedStep = result.parent as AsyncResult<number>;
      const error = await failureOf(result.get(TIMEOUT));
      expect(error.remote.name).toBe('E2eFailure');
      expect(error.remote.message).toBe('e2e.fail called with [2,"step 2"]');
      await expect(failedStep.state()).resolves.toBe('FAILURE');
      // The errback gets (failed task id, its error).
      await expect(client.result(errbackId).get(TIMEOUT)).resolves.toEqual({
        taskId: failedStep.id,
        name: 'E2eFailure',
        message: 'e2e.fail called with [2,"step 2"]',
      });
      // Once the worker drained, nothing is queued and the last step never ran.
      await drain(worker);
      await expect(marks(fixture, 'after-failure')).resolves.toBe(0);
      expect(ran(worker, result.id)).toBe(false);
      await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, active: 0, dead: 0 });
    });

    it('a step that fails and retries keeps its chain intact', async () => {
      const { client, worker } = await setUp(1);
      const errbackId = randomUUID();
      const workflow = chain(s(client, 'e2e.add', 1, 1), s(client, 'e2e.failOnce'), s(client, 'e2e.add', 10));
      const result = workflow.onError(s(client, 'e2e.errback').set({ taskId: errbackId })).applyAsync();
      await expect(result.get(TIMEOUT)).resolves.toBe(12);
      await expect((result.parent as AsyncResult<number>).record()).resolves.toMatchObject({
        state: 'SUCCESS',
        retries: 1,
      });
      await drain(worker);
      expect(ran(worker, errbackId)).toBe(false);
    });

    it('a step whose result is too large for the next message fails the rest of the workflow, with why', async () => {
      const { fixture, client, worker } = await setUp(1);
      // Each result fits in a record, but not in the message of the step it feeds (maxMessageSize is 1 MiB).
      const chained = chain(
        si(client, 'e2e.repeat', 'x', 1_100_000),
        s(client, 'e2e.mark', 'after-big-step'),
      ).applyAsync();
      const tooLarge = await failureOf(chained.get(TIMEOUT));
      expect(tooLarge.remote).toMatchObject({
        code: 'CELERIAC_MESSAGE_TOO_LARGE',
        message: expect.stringContaining('The message for e2e.mark is'),
      });
      const chorded = chord(
        [si(client, 'e2e.repeat', 'y', 600_000), si(client, 'e2e.repeat', 'z', 600_000)],
        s(client, 'e2e.countedSum', 'callback'),
      ).applyAsync();
      const chordError = await failureOf(chorded.get(TIMEOUT));
      expect(chordError.remote.name).toBe('ChordError');
      expect(chordError.remote.message).toContain('cannot start its callback: The message for e2e.countedSum is');
      // Nothing ran again, and nothing after the big results ran.
      await drain(worker);
      const starts = worker.lines.filter((line) => line.state === 'STARTED').map((line) => line.id);
      expect(starts.sort()).toEqual(
        [(chained.parent as AsyncResult<string>).id, ...(chorded.parent as GroupResult).ids].sort(),
      );
      await expect(marks(fixture, 'after-big-step')).resolves.toBe(0);
      await expect(marks(fixture, 'callback')).resolves.toBe(0);
      await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, active: 0, dead: 0 });
    });

    it('a failed chord header task fails the chord with a ChordError naming it; the callback never runs', async () => {
      const { fixture, client, workers: pair } = await setUp(2);
      const header = Array.from({ length: 20 }, (_, index) =>
        index === 13 ? si(client, 'e2e.fail', 'member 13') : si(client, 'e2e.add', index, 1),
      );
      const result = chord(header, s(client, 'e2e.countedSum', 'callback')).applyAsync();
      const error = await failureOf(result.get(TIMEOUT));
      const members = result.parent as GroupResult;
      expect(error.remote.name).toBe('ChordError');
      expect(error.remote.message).toContain(`e2e.fail[${members.id}:13]`);
      expect(error.remote.message).toContain('E2eFailure');
      // Every header task settled: 19 succeeded, one failed.
      const outcomes = await members.get({ ...TIMEOUT, propagate: false });
      expect(outcomes.filter((outcome) => outcome instanceof TaskFailedError)).toHaveLength(1);
      await expect(members.completedCount()).resolves.toBe(19);
      // Once the workers drained, the callback has still not run anywhere.
      await drain(...pair);
      await expect(marks(fixture, 'callback')).resolves.toBe(0);
      expect(pair.some((worker) => ran(worker, result.id))).toBe(false);
      await expect(result.state()).resolves.toBe('FAILURE');
      await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, active: 0, dead: 0 });
    });

    it('link runs with the result; linkError with (taskId, error); neither runs on the other outcome', async () => {
      const { fixture, client, worker } = await setUp(1);
      const ids = {
        link: randomUUID(),
        linkError: randomUUID(),
        unusedLink: randomUUID(),
        unusedLinkError: randomUUID(),
      };
      const ok = client.sendTask<number>('e2e.add', [2, 3], {
        link: s(client, 'e2e.mark', 'linked').set({ taskId: ids.link }),
        linkError: s(client, 'e2e.errback').set({ taskId: ids.unusedLinkError }),
      });
      const bad = client.sendTask('e2e.fail', ['linked'], {
        link: s(client, 'e2e.mark', 'wrongly-linked').set({ taskId: ids.unusedLink }),
        linkError: s(client, 'e2e.errback').set({ taskId: ids.linkError }),
      });
      await expect(ok.get(TIMEOUT)).resolves.toBe(5);
      // The link got the result as its first argument (e2e.mark passes it on).
      await expect(client.result(ids.link).get(TIMEOUT)).resolves.toBe(5);
      await failureOf(bad.get(TIMEOUT));
      await expect(client.result(ids.linkError).get(TIMEOUT)).resolves.toEqual({
        taskId: bad.id,
        name: 'E2eFailure',
        message: 'e2e.fail called with ["linked"]',
      });
      await drain(worker);
      await expect(marks(fixture, 'linked')).resolves.toBe(1);
      await expect(marks(fixture, 'wrongly-linked')).resolves.toBe(0);
      for (const id of [ids.unusedLink, ids.unusedLinkError]) expect(ran(worker, id)).toBe(false);
    });

    it('dependsOn: a task waits slotless for a slow dependency; DependencyFailedError if one fails', async () => {
      // One slot: the dependent, sent first, must give it up for its dependency to run.
      const { fixture, client, worker } = await setUp(1, { args: ['-c', '1'] });
      const slowId = randomUUID();
      const dependent = client.sendTask<string>('e2e.stateOf', [slowId], { dependsOn: slowId });
      await dependent.sent;
      const slow = client.sendTask<string>('e2e.gate', ['slow done', 'gate'], { taskId: slowId });
      await worker.started(slow.id);
      await expect(dependent.state()).resolves.toBe('PENDING');
      await fixture.redis().lpush(`${fixture.prefix}:marks:gate`, 'open');
      await expect(slow.get(TIMEOUT)).resolves.toBe('slow done');
      // When the dependent ran, its dependency had succeeded.
      await expect(dependent.get(TIMEOUT)).resolves.toBe('SUCCESS');

      const failing = client.sendTask('e2e.fail', ['dependency']);
      const blocked = client.sendTask('e2e.mark', [1, 'blocked'], { dependsOn: [slow, failing] });
      const error = await failureOf(blocked.get(TIMEOUT));
      expect(error.remote.name).toBe('DependencyFailedError');
      expect(error.remote.message).toContain(failing.id);
      await drain(worker);
      await expect(marks(fixture, 'blocked')).resolves.toBe(0);
      expect(ran(worker, blocked.id)).toBe(false);
    });
  });

  describe('workers killed with kill -9', () => {
    // A short lease, so a live worker reclaims the killed worker's tasks quickly.
    const env = { CELERIAC_TEST_VISIBILITY: '2s' };

    it('mid-chain: the step re-runs on the other worker and the chain completes', async () => {
      const { fixture, client, workers: pair } = await setUp(2, { env });
      const workflow = chain(
        s(client, 'e2e.add', 1, 1),
        s(client, 'e2e.stallOnce'),
        s(client, 'e2e.add', 10),
        s(client, 'e2e.mark', 'chain-end'),
      );
      const result = workflow.applyAsync();
      const stalled = (result.parent as AsyncResult<number>).parent as AsyncResult<number>;
      // Step 2 never finishes on its first delivery: kill the worker running it.
      const doomed = await whichStarted(pair, stalled.id);
      const survivor = pair.find((worker) => worker !== doomed) as WorkerProcess;
      doomed.signal('SIGKILL');
      await doomed.exited;
      await expect(result.get(TIMEOUT)).resolves.toBe(12);
      await expect(survivor.started(stalled.id)).resolves.toMatchObject({ delivery: 2 });
      await drain(survivor);
      await expect(marks(fixture, 'chain-end')).resolves.toBe(1);
      await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, active: 0, dead: 0 });
    });

    it('mid-chord: a header task re-runs on the other worker and the callback runs exactly once', async () => {
      const { fixture, client, workers: pair } = await setUp(2, { env });
      const header = Array.from({ length: 40 }, (_, index) =>
        index === 0 ? si(client, 'e2e.stallOnce', 1000) : si(client, 'e2e.add', index, 0),
      );
      const result = chord(header, s(client, 'e2e.countedSum', 'callback')).applyAsync();
      const members = result.parent as GroupResult;
      const stalledId = members.ids[0] as string;
      const doomed = await whichStarted(pair, stalledId);
      const survivor = pair.find((worker) => worker !== doomed) as WorkerProcess;
      doomed.signal('SIGKILL');
      await doomed.exited;
      // 1000 + (1 + ... + 39)
      await expect(result.get(TIMEOUT)).resolves.toBe(1780);
      await expect(survivor.started(stalledId)).resolves.toMatchObject({ delivery: 2 });
      await drain(survivor);
      await expect(marks(fixture, 'callback')).resolves.toBe(1);
      await expect(members.completedCount()).resolves.toBe(40);
      await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, active: 0, dead: 0 });
    });
  });
});
