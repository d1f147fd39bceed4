/**
 * An amqp:// app's options and first contact: refused without a Redis backend, a clear error for
 * wrong credentials, a missing vhost and a queue declared otherwise before.
 */
import { connect } from 'amqplib';
import { captureLogs, freshPrefix, RABBITMQ_BASE_URL, REDIS_URL, useTestVhost } from '@celeriac/test-support';
import { Celeriac } from 'celeriac';

const vhost = useTestVhost('options');

const apps: Celeriac[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** An app closed after the test. */
function appOn(broker: string): Celeriac {
  const app = new Celeriac({ broker, backend: REDIS_URL, prefix: freshPrefix('amqp-options') });
  apps.push(app);
  return app;
}

describe('amqp:// apps', () => {
  it('refuse to be made without a Redis backend for the shared state, saying to add one', () => {
    for (const backend of [undefined, 'memory://']) {
      expect(() => new Celeriac({ broker: vhost().url, ...(backend ? { backend } : {}) })).toThrow(
        expect.objectContaining({
          code: 'CELERIAC_INVALID_OPTION',
          message: expect.stringContaining("backend: 'redis://"),
        }),
      );
    }
  });

  it('refuse a queueType other than quorum or classic', () => {
    expect(() => new Celeriac({ broker: `${vhost().url}?queueType=lazy`, backend: REDIS_URL })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('queueType') }),
    );
  });

  it('refuse a consumerTimeout that is not a whole number of ms from 1,000, naming the parameter', () => {
    for (const value of ['soon', '500', '1.5e3x']) {
      expect(() => new Celeriac({ broker: `${vhost().url}?consumerTimeout=${value}`, backend: REDIS_URL })).toThrow(
        expect.objectContaining({
          code: 'CELERIAC_INVALID_OPTION',
          message: expect.stringContaining(`consumerTimeout is ${value}`),
        }),
      );
    }
  });

  it('fail a send at once, with what to check, for wrong credentials and a missing vhost', async () => {
    const wrongPassword = appOn(`${vhost().url.replace('guest:guest', 'guest:wrong')}`);
    await expect(wrongPassword.sendTask('t.any', []).sent).rejects.toMatchObject({
      code: 'CELERIAC_BROKER_UNAVAILABLE',
      message: expect.stringContaining('user name and password'),
    });
    const noVhost = appOn(`${RABBITMQ_BASE_URL}/celeriac-no-such-vhost`);
    await expect(noVhost.sendTask('t.any', []).sent).rejects.toMatchObject({
      code: 'CELERIAC_BROKER_UNAVAILABLE',
      message: expect.stringContaining('vhost'),
    });
  });

  it('name the queue and the argument when a queue exists with other arguments', async () => {
    const app = appOn(vhost().url);
    const queue = `${app.options.prefix}.default`;
    const connection = await connect(vhost().url);
    try {
      const channel = await connection.createChannel();
      await channel.assertQueue(queue, { durable: true });
      await expect(app.sendTask('t.any', []).sent).rejects.toMatchObject({
        code: 'CELERIAC_QUEUE_MISMATCH',
        message: expect.stringMatching(new RegExp(`${queue.replace(/\./g, '\\.')}.*x-queue-type`)),
      });
      await channel.deleteQueue(queue);
    } finally {
      await connection.close();
    }
  });

  it('run tasks end to end with an in-process worker, results on Redis', async () => {
    const app = appOn(vhost().url);
    const add = app.task('t.add', (a: number, b: number) => a + b);
    await app.worker({ concurrency: 2, pool: 'inline' }).start();
    await expect(add.delay(2, 3).get({ timeout: 10_000 })).resolves.toBe(5);
    expect(app.capabilities.broker).toMatchObject({
      priorities: 'none',
      deliveryCounts: 'exact',
      revokeRemoves: false,
    });
  });

  it('dead-letter a garbage message with a reason, and go on serving', async () => {
    const app = appOn(vhost().url);
    const add = app.task('t.add', (a: number, b: number) => a + b);
    await add.delay(0, 0).sent; // declares the queue
    const connection = await connect(vhost().url);
    try {
      const channel = await connection.createConfirmChannel();
      channel.publish('', `${app.options.prefix}.default`, Buffer.from('not a task'), { messageId: 'garbage' });
      await channel.waitForConfirms();
    } finally {
      await connection.close();
    }
    const after = add.delay(1, 1);
    const { logger, logs } = captureLogs();
    await app.worker({ concurrency: 1, prefetch: 0, pool: 'inline', logger }).start();
    await expect(after.get({ timeout: 10_000 })).resolves.toBe(2);
    expect(logs.map((entry) => entry.message)).toContainEqual(expect.stringContaining('undecodable message'));
    expect(await app.broker.listDead('default')).toEqual([
      expect.objectContaining({ id: 'garbage', body: 'not a task', reason: expect.any(String) }),
    ]);
  });
});
