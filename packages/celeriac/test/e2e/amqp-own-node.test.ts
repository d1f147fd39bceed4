/**
 * `celeriac worker` processes on a RabbitMQ node the test starts itself (results on Redis), for
 * what the machine's shared node must not be put through: a consumer_timeout of 2 s (one setting
 * for the whole server on 3.10) and a restart in the middle of a run.
 */
import { RABBIT_NODE_TIMEOUT, startRabbitNode, type RabbitNode } from '@celeriac/test-support';
import { useAmqpWorkers } from './support/amqp-workers';

const CONSUMER_TIMEOUT = 2_000;

let node: RabbitNode;
beforeAll(async () => {
  node = await startRabbitNode({
    name: 'e2e',
    port: 5_682,
    rabbit: [`{consumer_timeout, ${CONSUMER_TIMEOUT}}`, '{channel_tick_interval, 250}'],
  });
}, RABBIT_NODE_TIMEOUT);
afterAll(() => node.stop(), RABBIT_NODE_TIMEOUT);

describe('celeriac worker on a RabbitMQ node of its own', () => {
  // On the node's default vhost, with the node's consumer_timeout.
  const { sender, worker, tallied } = useAmqpWorkers(
    'e2e-amqp-node',
    () => `${node.url}/?consumerTimeout=${CONSUMER_TIMEOUT}`,
  );

  it('runs a task longer than consumer_timeout once, though a slot is free to run it again', async () => {
    const running = worker(['-c', '2']);
    await running.ready();
    const app = sender();
    // 2.5 timeouts long. Were its delivery requeued, the free slot would run it again at once (one
    // slot would not: the copy would wait and find the task's result stored).
    const long = app.sendTask<string>('e2e.slow-tally', ['long', 2.5 * CONSUMER_TIMEOUT]);
    const next = app.sendTask<string>('e2e.slow-tally', ['next', 0]);
    await expect(long.get({ timeout: 30_000 })).resolves.toBe('long');
    await expect(next.get({ timeout: 30_000 })).resolves.toBe('next');
    expect(tallied().sort()).toEqual(['long', 'next']);
  }, 60_000);

  it('finishes every task when RabbitMQ restarts in the middle of a run', async () => {
    const running = worker(['-c', '4']);
    await running.ready();
    const app = sender();
    // 7.5 s of work at least on four slots: most of it waits in RabbitMQ while the node restarts.
    const results = Array.from({ length: 300 }, (_, i) => app.sendTask<number>('e2e.slow-tally', [i, 100]));
    await Promise.all(results.map((result) => result.sent));
    const done = results.map((result) => result.get({ timeout: 60_000 }).then((value) => [value, Date.now()] as const));
    await done[20];
    await node.restart();
    const restartedAt = Date.now();
    const finished = await Promise.all(done);
    expect(finished.map(([value]) => value)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(finished.filter(([, at]) => at > restartedAt).length).toBeGreaterThan(0);
    const runs = tallied();
    expect(results.map((_, i) => String(i)).filter((value) => !runs.includes(value))).toEqual([]);
    // At least once: what ran while the node went down, its ack lost with the connection, ran again.
    const twice = runs.length - new Set(runs).size;
    const last = Math.max(...finished.map(([, at]) => at));
    process.stdout.write(
      `amqp e2e: RabbitMQ restart mid-run, ${twice} of 300 tasks ran twice, ` +
        `the last done ${last - restartedAt} ms after the node was back\n`,
    );
    expect(twice).toBeLessThan(300);
  }, 120_000);
});
