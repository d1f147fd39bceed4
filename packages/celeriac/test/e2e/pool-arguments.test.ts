/**
 * Arguments reach a task in a pool child as their types (registered classes, superjson's Date and
 * Set): the child reads the message its worker checked (signature included) and decodes only them.
 */
import { Money } from '../support/money';
import { useE2e } from './support/worker-process';

describe('celeriac worker: arguments in pool children', () => {
  const e2e = useE2e('e2e-pool-arguments');

  it.each([
    ['prefork', {}],
    ['prefork', { CELERIAC_TEST_SECRET: 'e2e-secret' }],
    ['fork', { CELERIAC_TEST_SECRET: 'e2e-secret' }],
  ])('--pool %s %j: a registered type, a Date and a Set arrive as themselves', async (pool, env) => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', pool], env);
    await worker.ready();
    const secret = (env as { CELERIAC_TEST_SECRET?: string }).CELERIAC_TEST_SECRET;
    const client = fixture.app(secret === undefined ? {} : { secret });
    client.registerType(Money, 'Money');
    const described = await client
      .sendTask<{ pid: number }>('e2e.describeArgs', [new Money(250), new Date(0), new Set(['a', 'b'])])
      .get({ timeout: 20_000 });
    expect(described).toEqual({
      money: 250,
      at: '1970-01-01T00:00:00.000Z',
      tags: ['a', 'b'],
      pid: expect.any(Number),
    });
    // Run in a child, not in the worker.
    expect(described.pid).not.toBe(worker.child.pid);
  });
});
