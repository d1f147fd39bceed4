/**
 * RabbitMQ for tests: the machine's node at `RABBITMQ_URL`'s host, a vhost of the test's own
 * (made with rabbitmqctl, deleted afterwards: only what the test made goes).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The RabbitMQ node the tests use, without a vhost (guest/guest). */
export const RABBITMQ_BASE_URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** Runs `rabbitmqctl` with `args`. */
export async function rabbitmqctl(...args: string[]): Promise<string> {
  // Deleting a vhost with a suite's thousand queues takes RabbitMQ a while on a busy machine.
  const { stdout } = await run('rabbitmqctl', args, { timeout: 180_000 });
  return stdout;
}

/**
 * How long a suite's `beforeAll` may take to make its vhost and its `afterAll` to delete it (give
 * it as the hook's timeout): each rabbitmqctl call starts an Erlang VM, which on two busy cores
 * beside a RabbitMQ node of another suite booting has taken longer than jest's 30 s.
 */
export const VHOST_TIMEOUT = 180_000;

/** A vhost made for one test suite; `url` connects to it as guest. */
export interface TestVhost {
  readonly name: string;
  readonly url: string;
  /** Deletes the vhost and everything in it. */
  remove(): Promise<void>;
}

/** Makes a fresh vhost named after `label`, with full permissions for guest. */
export async function createTestVhost(label: string): Promise<TestVhost> {
  const name = `celeriac-test-${label}-${randomUUID().slice(0, 8)}`;
  await rabbitmqctl('add_vhost', name);
  await rabbitmqctl('set_permissions', '-p', name, 'guest', '.*', '.*', '.*');
  return {
    name,
    url: `${RABBITMQ_BASE_URL}/${encodeURIComponent(name)}`,
    remove: async () => {
      await rabbitmqctl('delete_vhost', name);
    },
  };
}

/**
 * Gives the calling test file a vhost of its own: made before its tests, deleted after them (both
 * within {@link VHOST_TIMEOUT}). Returns the vhost, for use inside tests and hooks.
 */
export function useTestVhost(label: string): () => TestVhost {
  let vhost: TestVhost | undefined;
  beforeAll(async () => {
    vhost = await createTestVhost(label);
  }, VHOST_TIMEOUT);
  afterAll(async () => {
    await vhost?.remove();
  }, VHOST_TIMEOUT);
  return () => {
    if (!vhost) throw new Error(`The vhost of ${label} is made in beforeAll: use it inside a test or hook.`);
    return vhost;
  };
}
