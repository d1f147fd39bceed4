/**
 * One task's bad record must fail that task's settle only: the worker's settler writes the records
 * of every task that ends in a tick in one batch, and Redis refuses some records (a TTL past its clock).
 */
import { RecordsRefusedError, type Delivery, type StoreEntry } from '@celeriac/core';
import { KeySpace, runScript } from '@celeriac/redis/internal';
import { RedisFixture } from '@celeriac/test-support';
import { Settler } from '../src/settler';

describe('settling a batch with a record Redis refuses', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('settle-batch')));
  afterEach(() => fixture.cleanup());

  const success = (id: string, ttl: number): StoreEntry => ({
    record: { id, state: 'SUCCESS', task: 't', result: id, date: Date.now() },
    ttl,
  });

  it('stores and acks the good tasks of the batch and fails only the task with the bad record', async () => {
    const app = fixture.app();
    await app.broker.publish(
      ['good', 'bad', 'other'].map((id) => ({ id, queue: 'default', priority: 0, idempotent: false, body: '{}' })),
    );
    const deliveries = new Map((await app.broker.reserve(['default'], 3)).map((delivery) => [delivery.id, delivery]));
    const settler = new Settler(app.backend, app.broker);
    const outcomes = await Promise.allSettled([
      settler.finish(deliveries.get('good') as Delivery, success('good', 60_000)),
      settler.finish(deliveries.get('bad') as Delivery, success('bad', 1e20)),
      settler.finish(deliveries.get('other') as Delivery, success('other', 60_000)),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (outcomes[1] as PromiseRejectedResult).reason as RecordsRefusedError;
    expect(refused).toBeInstanceOf(RecordsRefusedError);
    expect([...refused.refused.keys()]).toEqual(['bad']);
    await expect(app.backend.getMany(['good', 'bad', 'other'])).resolves.toEqual([
      expect.objectContaining({ state: 'SUCCESS' }),
      undefined,
      expect.objectContaining({ state: 'SUCCESS' }),
    ]);
    // The bad task keeps its lease (its worker decides what becomes of it); the others are acked.
    await expect(app.broker.stats('default')).resolves.toMatchObject({ active: 1 });
  });

  it('the batch script stores every record Redis takes and names the ones it refuses', async () => {
    const keys = new KeySpace(fixture.prefix);
    const redis = fixture.redis();
    const app = fixture.app();
    const client = (app.backend as unknown as { connection: { client: Parameters<typeof runScript>[0] } }).connection
      .client;
    // Ids with one hash tag: on a cluster a script's keys must share a slot (the backend calls it once a slot).
    const [x, y, z] = ['{batch}x', '{batch}y', '{batch}z'].map((id) => keys.result(id));
    const refused = await runScript<Array<number | string>>(
      client,
      'storeRecords',
      [x!, y!, z!],
      ['x', 60_000, 1, 'y', '100000000000000000000', 1, 'z', 60_000, 1],
    );
    expect(refused).toEqual([2, expect.stringMatching(/ERR/)]);
    await expect(redis.mget(x!, y!, z!)).resolves.toEqual(['x', null, 'z']);
  });
});
