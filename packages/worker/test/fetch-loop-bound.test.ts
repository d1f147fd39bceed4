import { MEMORY_BROKER_CAPABILITIES, type Broker, type Delivery, type Logger } from '@celeriac/core';
import { FetchLoop } from '../src/fetch-loop';
import { WorkerSlots } from '../src/worker-slots';

/** A broker whose first wait never comes back (its client lost the command), then serves one delivery. */
function hangingBroker() {
  const delivery: Delivery = { id: 'd1', queue: 'q', body: '{}', deliveries: 1 };
  let waits = 0;
  let releaseHung!: (deliveries: Delivery[]) => void;
  const calls = { reconnects: 0, requeued: [] as string[] };
  const broker = {
    capabilities: { ...MEMORY_BROKER_CAPABILITIES, waitAndReserve: true, reconnect: true },
    reserve: () => Promise.resolve([]),
    waitForWork: () => Promise.resolve(),
    waitAndReserve: (_queues: string[], _count: number, signal: AbortSignal) => {
      waits += 1;
      if (waits === 1) return new Promise<Delivery[]>((resolve) => (releaseHung = resolve));
      if (waits === 2) return Promise.resolve([delivery]);
      // A wait that behaves: it ends when the loop ends it.
      return new Promise<Delivery[]>((resolve) => signal.addEventListener('abort', () => resolve([])));
    },
    reconnect: () => void (calls.reconnects += 1),
    requeue: (late: Delivery) => {
      calls.requeued.push(late.id);
      return Promise.resolve();
    },
    stats: () => Promise.resolve({ ready: 7, delayed: 0, active: 0, dead: 0 }),
  } as unknown as Broker;
  return { broker, calls, delivery, releaseHung: (deliveries: Delivery[]) => releaseHung(deliveries) };
}

function recordingLogger() {
  const errors: Array<{ fields: object; message: string }> = [];
  let onError: (() => void) | undefined;
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (fields, message) => {
      errors.push({ fields, message });
      onError?.();
    },
    isLevelEnabled: () => true,
  };
  const untilError = () =>
    new Promise<void>((resolve) => {
      if (errors.length > 0) resolve();
      else onError = resolve;
    });
  return { logger, errors, untilError };
}

describe('the fetch loop gives up on a broker call that does not come back', () => {
  it('logs it, rebuilds the waits, takes tasks again, and puts back what the call yields late', async () => {
    const { broker, calls, delivery, releaseHung } = hangingBroker();
    const { logger, errors, untilError } = recordingLogger();
    const held: Delivery[] = [];
    let tookOne!: () => void;
    const untilHeld = new Promise<void>((resolve) => (tookOne = resolve));
    const slots = new WorkerSlots({ slots: () => 1, canStart: () => false, run: () => undefined });
    const loop = new FetchLoop({
      broker,
      prefetch: 0,
      logger,
      slots,
      queues: () => ['q'],
      hold: (taken) => {
        held.push(taken);
        tookOne();
      },
      callBound: 100,
    });
    loop.start();
    await untilError();
    await untilHeld;
    expect(calls.reconnects).toBe(1);
    expect(held).toEqual([delivery]);
    expect(errors[0]?.message).toMatch(/wait for work did not come back/);
    expect(errors[0]?.fields).toMatchObject({ call: 'wait for work', queues: ['q'], ready: 7 });
    expect(errors).toHaveLength(1);
    // The call given up on resolves at last: what it reserved goes back.
    releaseHung([{ ...delivery, id: 'late' }]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(calls.requeued).toEqual(['late']);
    const stopping = loop.stop();
    await expect(stopping).resolves.toBeUndefined();
  });
});
