import { Celeriac } from 'celeriac';
import { Codec, MemoryBackend, MemoryBroker, type Delivery } from '@celeriac/core';
import { conformanceBrokerSettings, deferred } from '@celeriac/core/testing';
import { captureLogs } from './support/app';

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
  function app(secret: string | undefined, withTask = false): Celeriac {
    const created = new Celeriac({ broker, backend, ...(secret === undefined ? {} : { secret }) });
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
});
