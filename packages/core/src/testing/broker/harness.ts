/** What the broker conformance cases share: the fixture contract, the opener, and envelope builders. */
import type { Broker, BrokerSettings, Delivery } from '../../broker';
import type { Envelope } from '../../message';
import { settledWithin, withDeadline } from '../wait';

/** One broker under test, as the implementation's factory hands it over. */
export interface BrokerFixture {
  /** The broker under test. */
  readonly broker: Broker;
  /**
   * A second client of the same store (another process's view), when the implementation can have
   * one: publishes and revocations then come from it, so notifications are tested across clients.
   * Omit for one-process implementations.
   */
  readonly peer?: Broker;
  /**
   * Runs after every test: deletes only what this fixture stored (its key prefix) and closes its
   * clients. Some tests close the broker themselves, so a closed broker must be tolerated.
   */
  cleanup(): Promise<void>;
}

/**
 * Creates a broker for one test. `settings.prefix` is unique per call; key everything under it.
 * Tests pass their own `visibilityTimeout`, `maxDeliveries` or `revokeTtl` through `settings`.
 */
export type BrokerFactory = (settings: BrokerSettings) => Promise<BrokerFixture>;

/** A fixture as the cases see it: `writer` is the peer when there is one, else the broker itself. */
export interface OpenedBroker extends BrokerFixture {
  readonly writer: Broker;
  readonly settings: BrokerSettings;
}

/** Opens a fixture with setting overrides; the suite cleans it up after the test. */
export type OpenBroker = (overrides?: Partial<BrokerSettings>) => Promise<OpenedBroker>;

/** The queue most cases use. */
export const QUEUE = 'conformance';
/** A second queue, for routing and isolation checks. */
export const OTHER_QUEUE = 'conformance-other';

/** A ready envelope on {@link QUEUE} with a recognizable body; `fields` override any part. */
export function envelope(id: string, fields: Partial<Envelope> = {}): Envelope {
  return { id, queue: QUEUE, priority: 0, idempotent: false, body: `body of ${id}`, ...fields };
}

/** The ids of deliveries or dead letters, in order. */
export function ids(deliveries: ReadonlyArray<{ readonly id: string }>): string[] {
  return deliveries.map((delivery) => delivery.id);
}

/** Publishes one envelope and leases it, failing unless exactly that message comes back. */
export async function publishAndReserve(broker: Broker, message: Envelope): Promise<Delivery> {
  await broker.publish([message]);
  const [delivery, ...rest] = await broker.reserve([message.queue], 1);
  expect(rest).toEqual([]);
  expect(delivery?.id).toBe(message.id);
  return delivery as Delivery;
}

/** Checks that a wait on {@link QUEUE} stays pending (no busy polling), then ends it. */
export async function expectWaitPending(broker: Broker): Promise<void> {
  const controller = new AbortController();
  const waiting = broker.waitForWork([QUEUE], controller.signal);
  expect(await settledWithin(waiting, 100)).toBe('pending');
  controller.abort();
  await waiting;
}

/** Reserves until `id` comes back, waking on the broker's own notice (never polling). */
export async function reserveWhenReady(broker: Broker, id: string): Promise<Delivery> {
  return withDeadline(10_000, async (signal) => {
    for (;;) {
      const found = (await broker.reserve([QUEUE], 10)).find((delivery) => delivery.id === id);
      if (found) return found;
      if (signal.aborted) throw new Error(`${id} was never ready again`);
      await broker.waitForWork([QUEUE], signal);
    }
  });
}
