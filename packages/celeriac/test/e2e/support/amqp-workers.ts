/**
 * What the RabbitMQ end-to-end tests share: `celeriac worker` and `celeriac beat` processes on
 * fixtures/amqp-app.js, a sending app, and the tally file the app's tally tasks append to, on the
 * broker `brokerUrl` names (results and beat state on Redis, under the test's prefix).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REDIS_URL } from '@celeriac/test-support';
import { Celeriac } from 'celeriac';
import { useE2e, type E2eContext, type WorkerProcess } from './worker-process';

/** The app module the RabbitMQ workers load. */
const AMQP_APP = join(__dirname, '../fixtures/amqp-app.js');

/** A test's RabbitMQ workers, sender and tally. */
export interface AmqpWorkers {
  readonly e2e: () => E2eContext;
  /** The test's sending app (closed after the test). */
  sender(): Celeriac;
  /** Starts a worker with `args` (`-c 4`, ...). */
  worker(args: string[]): WorkerProcess;
  /** Starts a scheduler with `args` (`--lease 2s`, ...), firing the fixture's `tick` entry every second. */
  beat(args: string[]): WorkerProcess;
  /** The values the tally tasks ran with, once each run. */
  tallied(): string[];
}

/** Registers the hooks of a describe block whose tests run RabbitMQ workers on `brokerUrl()`. */
export function useAmqpWorkers(label: string, brokerUrl: () => string): AmqpWorkers {
  const e2e = useE2e(label);
  const tally = join(tmpdir(), `celeriac-${label}-tally-${randomBytes(4).toString('hex')}`);
  let client: Celeriac | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
    rmSync(tally, { force: true });
  });
  const env = () => ({ CELERIAC_TEST_AMQP_URL: brokerUrl(), CELERIAC_TEST_TALLY_FILE: tally });
  return {
    e2e,
    sender: () => {
      client = new Celeriac({ broker: brokerUrl(), backend: REDIS_URL, prefix: e2e().fixture.prefix });
      return client;
    },
    worker: (args) => e2e().workers.spawn('worker', ['-A', AMQP_APP, ...args], env()),
    beat: (args) => e2e().workers.spawn('beat', ['-A', AMQP_APP, ...args], { ...env(), CELERIAC_TEST_BEAT: 'on' }),
    tallied: () => (existsSync(tally) ? readFileSync(tally, 'utf8').trim().split('\n') : []),
  };
}
