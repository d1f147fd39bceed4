/**
 * PostgreSQL restarted mid-run (DESIGN.md invariants 1 and 8), on a server of the suite's own so
 * that the machine's server, which other suites share, is left alone. Each round stops the server
 * while workers hold running tasks, more wait queued and a sender sends one task after another:
 * once with a fast shutdown (sessions ended) and once with an immediate one (a crash: WAL replay at
 * start, and commits made with `synchronous_commit = off` may be gone). The running tasks end while
 * the server is down, so their results and acks meet no server. Afterwards every task whose send was
 * acknowledged has run and its result has reached a wait begun before the outage, the sender sends
 * again, each worker takes new tasks, and SIGTERM ends each with 0.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AsyncResult, Celeriac } from 'celeriac';
import { PostgresServer, type PostgresStopMode } from '@celeriac/test-support';
import type { WorkerProcess } from './support/worker-process';
import { usePostgresE2e } from './support/postgres-e2e';

/** Gated tasks a round sends before the outage: the workers hold some running, the rest wait queued. */
const GATED = 30;
/** Sends the sender must have had accepted before the outage, and again after it. */
const ACCEPTED = 10;
const WAIT = { timeout: 45_000 };

/**
 * Sends `pg.add` tasks one after another, each to the next of `queues`, until stopped; keeps the
 * handle of each send the broker accepted (a refused one may or may not have been stored).
 */
class Sender {
  readonly accepted: Array<{ value: number; handle: AsyncResult<number> }> = [];
  readonly done: Promise<void>;
  private stopped = false;
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(
    private readonly client: Celeriac,
    private readonly queues: readonly string[],
    private readonly base: number,
  ) {
    this.done = this.run();
  }

  /** Resolves once `more` sends beyond those accepted so far have been accepted. */
  acceptedMore(more: number): Promise<void> {
    const count = this.accepted.length + more;
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Stops after the send under way; resolves when it did. */
  stop(): Promise<void> {
    this.stopped = true;
    return this.done;
  }

  private async run(): Promise<void> {
    for (let n = 0; !this.stopped; n += 1) {
      const queue = this.queues[n % this.queues.length] as string;
      const value = this.base + n;
      const handle = this.client.sendTask<number>('pg.add', [value, 0], { queue });
      const accepted = await handle.sent.then(
        () => true,
        () => false,
      );
      if (!accepted) continue;
      this.accepted.push({ value, handle });
      for (const waiter of this.waiters.filter((each) => each.count <= this.accepted.length)) waiter.resolve();
    }
  }
}

describe('celeriac worker on PostgreSQL: the server restarted mid-run', () => {
  let server: PostgresServer;
  const gates: string[] = [];
  beforeAll(async () => {
    server = await PostgresServer.start();
  });
  afterAll(async () => {
    await server.remove();
    for (const gate of gates) rmSync(gate, { force: true });
  });
  const e2e = usePostgresE2e('e2e_restarts', () => server.url());

  /** A file path for `pg.gated` tasks: they end once it exists. */
  function gate(): string {
    const path = join(tmpdir(), `celeriac-pg-gate-${randomBytes(4).toString('hex')}`);
    gates.push(path);
    return path;
  }

  it('workers and senders reconnect; every acknowledged task runs and every result arrives', async () => {
    const { spawn, app } = e2e();
    // A short lease: a task whose ack the outage lost runs again soon.
    const visibility = { CELERIAC_TEST_VISIBILITY: '3s' };
    // Each on a queue of its own, so that each must take its own tasks after the outages.
    const pools = ['prefork', 'inline'] as const;
    const queues = pools.map((pool) => `restart-${pool}`);
    const workers: WorkerProcess[] = pools.map((pool, index) =>
      spawn('worker', ['--pool', pool, '-c', '2', '-Q', queues[index] as string], visibility),
    );
    await Promise.all(workers.map((worker) => worker.ready()));
    const client = app();
    const results: Array<{ value: number; result: Promise<number> }> = [];
    const rounds: PostgresStopMode[] = ['fast', 'immediate'];
    for (const [round, mode] of rounds.entries()) {
      const base = (round + 1) * 1_000_000;
      const open = gate();
      const gated = Array.from({ length: GATED }, (_, index) =>
        client.sendTask<number>('pg.gated', [base + index, open], { queue: queues[index % queues.length] }),
      );
      await Promise.all(gated.map((handle) => handle.sent));
      // Awaited across the outage.
      results.push(...gated.map((handle, index) => ({ value: base + index, result: handle.get(WAIT) })));
      // Both workers hold a task of this round that cannot end until the gate opens.
      const ids = new Set(gated.map((handle) => handle.id));
      await Promise.all(
        workers.map((worker) =>
          worker.waitForLog((line) => ids.has(String(line.id)) && line.state === 'STARTED', 'a start of the round'),
        ),
      );
      const sender = new Sender(client, queues, base + GATED);
      await sender.acceptedMore(ACCEPTED);

      await server.halt(mode);
      // A send meets the outage as a typed error, not a hang.
      await expect(client.sendTask('pg.add', [0, 0], { queue: queues[0] }).sent).rejects.toMatchObject({
        code: 'CELERIAC_BROKER_UNAVAILABLE',
      });
      // The running tasks end now: their results and acks find no server.
      writeFileSync(open, '');
      await server.restart();

      // The sender's sends are accepted again; every one accepted, before or after, gets its result.
      await sender.acceptedMore(ACCEPTED);
      await sender.stop();
      for (const { value, handle } of sender.accepted) results.push({ value, result: handle.get(WAIT) });
    }
    await expect(Promise.all(results.map((each) => each.result))).resolves.toEqual(results.map((each) => each.value));
    for (const worker of workers) worker.signal('SIGTERM');
    await expect(Promise.all(workers.map((worker) => worker.exited))).resolves.toEqual(
      workers.map(() => ({ code: 0, signal: null })),
    );
    for (const queue of queues)
      await expect(client.broker.stats(queue)).resolves.toMatchObject({ ready: 0, delayed: 0, active: 0, dead: 0 });
  }, 90_000);
});
