/**
 * `protocol: 'celery'` on RabbitMQ, both ways, with real Python Celery (py-amqp) on the same vhost:
 * a Celeriac caller and a Python worker, a Python caller and a `celeriac worker`, results in Celery's
 * Redis result format. Arguments and keyword arguments, failures with their type, eta (held in
 * RabbitMQ's delay levels on the Celeriac side), retries, a chain whose steps alternate between the
 * two, a pickled message, dead-lettered with its reason while the worker goes on, and Celery's remote
 * control over RabbitMQ's pidbox: `celery inspect ping` answered by a celeriac worker, revokes both ways;
 * and Celery events on the `celeryev` exchange, read by a Python receiver as Flower reads them.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { connect } from 'amqplib';
import { type Celeriac, kwargs, TaskFailedError, TaskRevokedError } from 'celeriac';
import { adminClient, CELERY_REDIS_URL, createTestVhost, VHOST_TIMEOUT, type TestVhost } from '@celeriac/test-support';
import {
  celeryApp,
  celeryCommand,
  forgetResults,
  pythonCall,
  PythonEventReceiver,
  PythonWorker,
  type CelerySide,
} from './support/python-celery';
import { useE2e, type WorkerProcess } from './support/worker-process';

const CELERY_APP = join(__dirname, 'fixtures/celery-app.js');

describe('protocol celery on RabbitMQ: Celeriac and Python Celery share queues both ways', () => {
  const sent = new Set<string>();
  const redis = adminClient(CELERY_REDIS_URL);
  let vhost: TestVhost;
  let python: PythonWorker;
  let py: CelerySide;
  let ts: CelerySide;

  beforeAll(async () => {
    vhost = await createTestVhost('celery-amqp');
    // The Python worker listens on Celery's pidbox exchange: revokes and inspect reach it, and it answers.
    py = { keyPrefix: 'unused:', queue: 'py', broker: vhost.url, remoteControl: true };
    ts = { keyPrefix: 'unused:', queue: 'ts', broker: vhost.url };
    python = new PythonWorker(py, 'solo');
    await python.ready();
  }, VHOST_TIMEOUT);

  afterAll(async () => {
    await python?.kill();
    await forgetResults(redis, sent);
    await redis.quit();
    await vhost?.remove();
  }, VHOST_TIMEOUT);

  const e2e = useE2e('celery-amqp', CELERY_REDIS_URL);

  async function startWorker(env: Record<string, string> = {}): Promise<WorkerProcess> {
    const worker = e2e().workers.spawn('worker', ['-A', CELERY_APP, '-Q', ts.queue, '--pool', 'inline'], {
      CELERIAC_TEST_CELERY_AMQP: vhost.url,
      ...env,
    });
    await worker.ready();
    return worker;
  }

  function caller(): Celeriac {
    return celeryApp(e2e().fixture.prefix, py);
  }

  function send<R>(app: Celeriac, ...call: Parameters<Celeriac['sendTask']>) {
    const result = app.sendTask<R>(...call);
    sent.add(result.id);
    return result;
  }

  it('a Celeriac caller runs Python tasks: arguments, keyword arguments, a failure with its type', async () => {
    const app = caller();
    try {
      await expect(send<number>(app, 'proj.add', [2, 3, kwargs({ z: 10 })]).get({ timeout: 20_000 })).resolves.toBe(15);
      const error = await send(app, 'proj.fail', ['card declined'])
        .get({ timeout: 20_000 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TaskFailedError);
      expect((error as TaskFailedError).remote).toMatchObject({ name: 'ValueError', message: 'card declined' });
    } finally {
      await app.close();
    }
  });

  it('a countdown waits in RabbitMQ, and Python retries with a countdown of its own', async () => {
    const app = caller();
    try {
      const sentAt = Date.now();
      const delayed = send<number>(app, 'proj.add', [1, 1], { countdown: '1s' });
      await expect(delayed.get({ timeout: 20_000 })).resolves.toBe(2);
      expect((await app.backend.get(delayed.id))?.date).toBeGreaterThanOrEqual(sentAt + 1000);
      await expect(send<number>(app, 'proj.flaky', [2]).get({ timeout: 20_000 })).resolves.toBe(2);
    } finally {
      await app.close();
    }
  });

  it('Python calls a celeriac worker: the result, a failure with its type, an eta, retries', async () => {
    await startWorker();
    const call = async (request: Parameters<typeof pythonCall>[1]) => {
      const made = pythonCall(ts, request);
      sent.add(await made.id);
      return made.outcome;
    };
    await expect(call({ task: 'ts.add', args: [2, 3], kwargs: { z: 10 } })).resolves.toEqual({
      state: 'SUCCESS',
      result: 15,
    });
    await expect(call({ task: 'ts.fail', args: ['no'] })).resolves.toMatchObject({
      state: 'FAILURE',
      exc_type: 'TypeError',
    });
    const before = Date.now();
    const stamped = await call({ task: 'ts.stamp', args: ['later'], options: { countdown: 1 } });
    expect(stamped.state).toBe('SUCCESS');
    expect((stamped.result as { ranAt: number }).ranAt).toBeGreaterThanOrEqual(before + 1000);
    await expect(call({ task: 'ts.flaky', args: [2] })).resolves.toEqual({ state: 'SUCCESS', result: 2 });
  });

  it("a Python caller on Celery's rpc:// backend gets a celeriac worker's results from its reply queue", async () => {
    await startWorker();
    const rpc: CelerySide = { ...ts, backend: 'rpc://' };
    // The results are in Redis too (the worker's backend): removed after the suite.
    const call = async (request: Parameters<typeof pythonCall>[1]) => {
      const made = pythonCall(rpc, request);
      sent.add(await made.id);
      return made.outcome;
    };
    await expect(call({ task: 'ts.add', args: [2, 3] })).resolves.toEqual({ state: 'SUCCESS', result: 5 });
    await expect(call({ task: 'ts.fail', args: ['no'] })).resolves.toMatchObject({
      state: 'FAILURE',
      exc_type: 'TypeError',
    });
  });

  it('a pickled message is dead-lettered with the reason, and the worker goes on serving', async () => {
    await startWorker();
    const id = randomUUID();
    const connection = await connect(vhost.url);
    try {
      const channel = await connection.createConfirmChannel();
      // As Python sends with task_serializer='pickle': Celeriac runs no code named by a message.
      const headers = { lang: 'py', task: 'ts.add', id, root_id: id, parent_id: null, retries: 0, eta: null };
      channel.publish('', ts.queue, Buffer.from([0x80, 0x04, 0x95]), {
        contentType: 'application/x-python-serialize',
        contentEncoding: 'binary',
        correlationId: id,
        headers,
        persistent: true,
      });
      await channel.waitForConfirms();
    } finally {
      await connection.close();
    }
    const app = celeryApp(e2e().fixture.prefix, ts);
    try {
      const made = pythonCall(ts, { task: 'ts.add', args: [1, 1] });
      sent.add(await made.id);
      await expect(made.outcome).resolves.toEqual({ state: 'SUCCESS', result: 2 });
      const dead = await app.broker.listDead(ts.queue);
      expect(dead).toEqual([expect.objectContaining({ id, queue: ts.queue })]);
      expect(dead[0]?.reason).toContain('pickle');
    } finally {
      await app.close();
    }
  });

  it("celery inspect ping lists the celeriac worker beside the Python one, over RabbitMQ's pidbox", async () => {
    await startWorker();
    const output = JSON.parse(await celeryCommand(py, ['inspect', 'ping', '--json', '--timeout', '2'])) as Record<
      string,
      unknown
    >;
    const names = Object.keys(output);
    expect(names).toHaveLength(2);
    expect(names.filter((name) => name.startsWith('py@'))).toHaveLength(1);
    expect(Object.values(output)).toEqual([{ ok: 'pong' }, { ok: 'pong' }]);
  });

  it('Python revokes a task a celeriac worker would run when due: it never runs', async () => {
    const worker = await startWorker();
    const made = pythonCall(ts, { task: 'ts.stamp', args: ['never'], options: { countdown: 2 }, revoke: true });
    const id = await made.id;
    sent.add(id);
    await expect(made.outcome).resolves.toMatchObject({ state: 'REVOKED', exc_type: 'TaskRevokedError' });
    const line = await worker.waitForLog((entry) => entry.id === id && entry.reason !== undefined, 'not run');
    expect(line.reason).toBe('revoked');
  });

  it('a Celeriac revoke reaches the Python worker: a delayed task ends REVOKED there', async () => {
    const app = caller();
    try {
      const result = send(app, 'proj.add', [1, 1], { countdown: '2s' });
      await result.sent;
      await result.revoke();
      await expect(result.get({ timeout: 20_000 })).rejects.toBeInstanceOf(TaskRevokedError);
      await python.waitFor(new RegExp(`Discarding revoked task: proj\\.add\\[${result.id}\\]`));
    } finally {
      await app.close();
    }
  });

  it("Celery events from a celeriac worker reach a Python receiver on RabbitMQ's celeryev exchange", async () => {
    const receiver = new PythonEventReceiver(ts);
    try {
      await receiver.ready;
      await startWorker({ CELERIAC_TEST_EVENTS: '1' });
      const made = pythonCall(ts, { task: 'ts.add', args: [2, 3] });
      const id = await made.id;
      sent.add(id);
      await expect(made.outcome).resolves.toEqual({ state: 'SUCCESS', result: 5 });
      await receiver.waitFor((seen) => seen.event.uuid === id && seen.event.type === 'task-succeeded', 'succeeded');
      const seen = receiver.ofTask(id);
      expect(seen.map(({ event }) => event.type)).toEqual(['task-received', 'task-started', 'task-succeeded']);
      expect(seen[2]).toMatchObject({ task_state: 'SUCCESS', task_name: 'ts.add', event: { result: '5' } });
    } finally {
      await receiver.kill();
    }
  });

  it('a chain across languages: Python, then Celeriac, then Python again', async () => {
    await startWorker();
    const made = pythonCall(ts, {
      chain: [
        { task: 'proj.add', args: [1, 2], queue: py.queue },
        { task: 'ts.add', args: [10], queue: ts.queue },
        { task: 'proj.add', args: [100], queue: py.queue },
      ],
    });
    for (const id of await made.ids) sent.add(id);
    await expect(made.outcome).resolves.toEqual({ state: 'SUCCESS', result: 113 });
  });
});
