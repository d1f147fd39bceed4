/**
 * A RabbitMQ cluster of three nodes (started by the test on ports 5691-5693) under `celeriac
 * worker` processes: the node leading the busy quorum queue is killed with SIGKILL while 2,000
 * tasks run. Every task finishes; duplicates and the time to recover are reported.
 * Run by `npm run test:rabbitmq-cluster`.
 */
import { quorumLeader, RABBIT_NODE_TIMEOUT, startRabbitCluster, type RabbitCluster } from '@celeriac/test-support';
import { useAmqpWorkers } from '../e2e/support/amqp-workers';

const TASKS = 2_000;

let cluster: RabbitCluster;
beforeAll(async () => {
  cluster = await startRabbitCluster('cluster', 5_691, 3);
}, 3 * RABBIT_NODE_TIMEOUT);
afterAll(() => cluster.stop(), RABBIT_NODE_TIMEOUT);

describe('celeriac worker on a RabbitMQ cluster', () => {
  const { sender, worker, tallied } = useAmqpWorkers('e2e-amqp-cluster', () => cluster.url);

  it('finishes every task when the node leading the queue is killed mid-run', async () => {
    const workers = [0, 1].map(() => worker(['-c', '4']));
    await Promise.all(workers.map((running) => running.ready()));
    const app = sender();
    const results = Array.from({ length: TASKS }, (_, i) => app.sendTask<number>('e2e.slow-tally', [i, 5]));
    await Promise.all(results.map((result) => result.sent));
    const done = results.map((result) =>
      result.get({ timeout: 120_000 }).then((value) => [value, Date.now()] as const),
    );
    await done[300];

    const leader = await quorumLeader(cluster.nodes[0]!, `${app.options.prefix}.default`);
    const doomed = cluster.nodes.find((node) => node.nodeName === leader);
    expect(doomed).toBeDefined();
    doomed!.kill();
    const killedAt = Date.now();

    const finished = await Promise.all(done);
    expect(finished.map(([value]) => value)).toEqual(Array.from({ length: TASKS }, (_, i) => i));
    const after = finished.map(([, at]) => at).filter((at) => at > killedAt);
    expect(after.length).toBeGreaterThan(0);
    const runs = tallied();
    expect(results.map((_, i) => String(i)).filter((value) => !runs.includes(value))).toEqual([]);
    const twice = runs.length - new Set(runs).size;
    process.stdout.write(
      `amqp cluster: leader ${leader} killed after ${TASKS - after.length} of ${TASKS} tasks; ` +
        `the next result ${Math.min(...after) - killedAt} ms later, the last ${Math.max(...after) - killedAt} ms; ` +
        `${twice} ran twice\n`,
    );
  }, 240_000);
});
