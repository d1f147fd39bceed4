import { Celeriac, currentTask } from 'celeriac';
import { Codec, MemoryBackend, MemoryBroker, type CeleriacOptions, type Delivery } from '@celeriac/core';
import { decodeMessage, envelopeOf, runtimeOf, type TaskMessage } from '@celeriac/core/internal';
import { conformanceBrokerSettings, deferred } from '@celeriac/core/testing';
import { captureLogs } from '@celeriac/test-support';

/** Resolves with the next delivery the broker dead-letters, and why. */
function nextDeadLetter(broker: MemoryBroker): Promise<{ delivery: Delivery; reason: string }> {
  const seen = deferred<{ delivery: Delivery; reason: string }>();
  const original = broker.deadLetter.bind(broker);
  broker.deadLetter = async (delivery, reason) => {
    await original(delivery, reason);
    seen.resolve({ delivery, reason });
  };
  return seen.promise;
}

describe('signed messages (secret)', () => {
  let broker: MemoryBroker;
  let backend: MemoryBackend;
  const apps: Celeriac[] = [];
  let runs: number;

  /** An app on the shared broker and backend; the worker side registers the task. */
  function app(secret: string | undefined, withTask = false, options: CeleriacOptions = {}): Celeriac {
    const created = new Celeriac({ broker, backend, ...options, ...(secret === undefined ? {} : { secret }) });
    if (withTask) created.task('guarded', () => ++runs);
    apps.push(created);
    return created;
  }

  beforeEach(() => {
    broker = new MemoryBroker(conformanceBrokerSettings());
    backend = new MemoryBackend(new Codec());
    runs = 0;
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((created) => created.close()));
  });

  it('runs a message signed with the same secret', async () => {
    const worker = app('right', true);
    await worker.worker({ pool: 'inline', concurrency: 1, logger: captureLogs().logger }).start();
    await expect(app('right').sendTask('guarded')).resolves.toBe(1);
  });

  it.each([
    ['signed with another secret', 'wrong', 'signature does not match'],
    ['unsigned', undefined, 'not signed'],
  ])('dead-letters a message %s without running it or writing its result', async (_, senderSecret, reason) => {
    const worker = app('right', true);
    const dead = nextDeadLetter(broker);
    await worker.worker({ pool: 'inline', concurrency: 1, logger: captureLogs().logger }).start();
    const forged = app(senderSecret).sendTask('guarded');
    await expect(dead).resolves.toMatchObject({ delivery: { id: forged.id }, reason: expect.stringContaining(reason) });
    expect(runs).toBe(0);
    expect(await forged.state()).toBe('PENDING');
    expect(await broker.listDead('default')).toEqual([expect.objectContaining({ id: forged.id })]);
  });

  describe('replay window', () => {
    const DAY = 86_400_000;

    it('signs a retry again with the time it is due again, so the window counts from the retry', async () => {
      const worker = app('right', false, { signatureMaxAge: '1m' });
      worker.task('later', () => currentTask().retry({ countdown: '1h' }), { retries: 1 });
      const requeued = deferred<{ id: string; body: string }>();
      const requeue = broker.requeue.bind(broker);
      broker.requeue = async (delivery, options) => {
        await requeue(delivery, options);
        requeued.resolve({ id: delivery.id, body: options?.body ?? delivery.body });
      };
      await worker.worker({ pool: 'inline', concurrency: 1, logger: captureLogs().logger }).start();
      const sent = app('right').sendTask('later');
      const { id, body } = await requeued.promise;
      expect(id).toBe(sent.id);
      // An hour later the retry is due: a one-minute window still lets it run.
      const check = { id, maxAge: 60_000, now: Date.now() + 3_600_000 + 30_000 };
      expect(decodeMessage(runtimeOf(worker).codec, body, { secret: 'right', delivery: check })).toMatchObject({
        id,
        retries: 1,
      });
    });

    /** A message of `guarded` as the sender app builds it, changed by `edit`, then signed. */
    function signed(
      sender: Celeriac,
      edit: (message: TaskMessage) => void = () => undefined,
    ): { message: TaskMessage; body: string } {
      const runtime = runtimeOf(sender);
      const message = runtime.buildMessage('guarded', [], {});
      edit(message);
      return { message, body: runtime.encode(message) };
    }

    /** Starts a worker app that requires signatures with `secret` `'right'`. */
    async function startWorker(options: CeleriacOptions = {}): Promise<void> {
      await app('right', true, options)
        .worker({ pool: 'inline', concurrency: 1, logger: captureLogs().logger })
        .start();
    }

    it('dead-letters a signed message copied under another id, unrun, leaving the original record alone', async () => {
      await startWorker();
      const sender = app('right');
      const { message, body } = signed(sender);
      await broker.publish([envelopeOf(message, body, false)]);
      await expect(sender.result(message.id)).resolves.toBe(1);
      const dead = nextDeadLetter(broker);
      await broker.publish([{ ...envelopeOf(message, body, false), id: 'copied-id' }]);
      await expect(dead).resolves.toMatchObject({
        delivery: { id: 'copied-id' },
        reason: expect.stringContaining(`signed for task id ${message.id} but is stored as copied-id`),
      });
      expect(runs).toBe(1);
      expect(await sender.result(message.id).state()).toBe('SUCCESS');
      expect(await sender.result('copied-id').state()).toBe('PENDING');
    });

    it('dead-letters a signed message due longer than signatureMaxAge ago (7 days by default)', async () => {
      await startWorker();
      const dead = nextDeadLetter(broker);
      const { message, body } = signed(app('right'), (old) => (old.publishedAt = Date.now() - 8 * DAY));
      await broker.publish([envelopeOf(message, body, false)]);
      await expect(dead).resolves.toMatchObject({
        delivery: { id: message.id },
        reason: expect.stringContaining('beyond signatureMaxAge'),
      });
      expect(runs).toBe(0);
      expect(await app('right').result(message.id).state()).toBe('PENDING');
    });

    it('counts the window from the eta: an old message with a late eta runs; signatureMaxAge can change', async () => {
      await startWorker({ signatureMaxAge: '1h' });
      const sender = app('right');
      const delayed = signed(sender, (message) => {
        message.publishedAt = Date.now() - 2 * DAY;
        message.eta = Date.now() - 1000;
      });
      await broker.publish([envelopeOf(delayed.message, delayed.body, false)]);
      await expect(sender.result(delayed.message.id)).resolves.toBe(1);
      const dead = nextDeadLetter(broker);
      const stale = signed(sender, (message) => (message.publishedAt = Date.now() - 2 * 3_600_000));
      await broker.publish([envelopeOf(stale.message, stale.body, false)]);
      await expect(dead).resolves.toMatchObject({
        delivery: { id: stale.message.id },
        reason: expect.stringContaining('beyond signatureMaxAge (3600 s)'),
      });
      expect(runs).toBe(1);
    });
  });
});
