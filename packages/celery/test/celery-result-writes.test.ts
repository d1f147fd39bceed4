/**
 * What the Celery backend writes beside a record: the next step of a Python chain goes out with a
 * SUCCESS, and a result that would travel on to Python but is not JSON refuses its record alone.
 */
import { randomUUID } from 'node:crypto';
import { Codec, RecordsRefusedError } from '@celeriac/core';
import { CeleryBackend } from '@celeriac/celery';
import { CeleryWorkflow } from '@celeriac/celery/internal';
import { RedisConnection } from '@celeriac/redis';
import { adminClient, CELERY_REDIS_URL, deleteKeysUnder, freshPrefix } from '@celeriac/test-support';
import type { CeleryEmbed } from '../src/protocol/payload';

describe('the Celery backend with a Python chain', () => {
  const prefix = freshPrefix('celery-result-writes');
  const admin = adminClient(CELERY_REDIS_URL);
  const codec = new Codec();
  const workflow = new CeleryWorkflow(codec);
  const backend = new CeleryBackend(
    new RedisConnection(CELERY_REDIS_URL),
    { prefix, clientId: randomUUID() },
    { keyPrefix: `${prefix}:kombu:`, resultKeyPrefix: `${prefix}:`, codec, workflow },
  );
  afterAll(async () => {
    await backend.close();
    await deleteKeysUnder(admin, prefix);
    await admin.quit();
  });

  /** Task `id` as a step of a Python chain whose next step is `py.next` on queue `py`. */
  const inChain = (id: string) => {
    const embed: CeleryEmbed = {
      callbacks: null,
      errbacks: null,
      chain: [{ task: 'py.next', args: [], options: { queue: 'py' } }],
      chord: null,
    };
    workflow.remember(id, id, embed);
  };

  it('sends the next step with a JSON result, and refuses alone a result Python could not be sent', async () => {
    inChain('plain');
    inChain('rich');
    const stored = backend.store([
      { record: { id: 'rich', state: 'SUCCESS', result: new Map([['a', 1]]), date: 1 }, ttl: 60_000 },
      { record: { id: 'plain', state: 'SUCCESS', result: { n: 1 }, date: 2 }, ttl: 60_000 },
    ]);
    const refused = await stored.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RecordsRefusedError);
    expect([...(refused as RecordsRefusedError).refused.keys()]).toEqual(['rich']);
    expect((refused as RecordsRefusedError).refused.get('rich')).toMatchObject({ code: 'CELERIAC_SERIALIZATION' });
    expect(await backend.get('rich')).toBeUndefined();
    expect(await backend.get('plain')).toMatchObject({ state: 'SUCCESS', result: { n: 1 } });
    const steps = await admin.lrange(`${prefix}:kombu:py`, 0, -1);
    expect(steps).toHaveLength(1);
    const step = JSON.parse(steps[0] as string) as { headers: { task: string; parent_id: string }; body: string };
    expect(step.headers).toMatchObject({ task: 'py.next', parent_id: 'plain' });
    const [args] = JSON.parse(Buffer.from(step.body, 'base64').toString('utf8')) as unknown[];
    expect(args).toEqual([{ n: 1 }]);
  });
});
