import {
  Codec,
  MemoryBackend,
  MemoryBroker,
  type Broker,
  type CeleriacEvent,
  type Delivery,
  type ResultBackend,
  type StoreEntry,
} from '@celeriac/core';
import { Settler } from '../src/settler';

/** The memory broker and backend, with their store and ack calls logged and the store held at a gate. */
function setUp() {
  const events: string[] = [];
  let openGate!: () => void;
  let failStore: ((error: Error) => void) | undefined;
  const gate = new Promise<void>((resolve, reject) => {
    openGate = resolve;
    failStore = reject;
  });
  const broker = new MemoryBroker({
    prefix: 'settler-test',
    visibilityTimeout: 30_000,
    maxDeliveries: 5,
    revokeTtl: 60_000,
  });
  const memoryBackend = new MemoryBackend(new Codec());
  const backend = Object.assign(Object.create(memoryBackend) as ResultBackend, {
    async store(entries: readonly StoreEntry[]) {
      events.push(`store ${entries.map((entry) => entry.record.id).join(',')}`);
      await gate;
      await memoryBackend.store(entries);
      events.push('stored');
    },
  });
  const ackingBroker = Object.assign(Object.create(broker) as Broker, {
    async ack(deliveries: readonly Delivery[]) {
      events.push(`ack ${deliveries.map((delivery) => delivery.id).join(',')}`);
      await broker.ack(deliveries);
    },
  });
  const settler = new Settler(backend, ackingBroker);
  return { events, broker, memoryBackend, settler, openGate, failStore: (error: Error) => failStore?.(error) };
}

async function reserveTwo(broker: MemoryBroker): Promise<Delivery[]> {
  await broker.publish(
    ['a', 'b'].map((id) => ({ id, queue: 'q', priority: 0, idempotent: false, body: `{"id":"${id}"}` })),
  );
  return broker.reserve(['q'], 2);
}

function success(id: string): StoreEntry {
  return { record: { id, state: 'SUCCESS', date: Date.now(), result: id }, ttl: 60_000 };
}

describe('Settler', () => {
  it('stores what settled in one tick in one batch, and acks it only once the records are stored', async () => {
    const { events, broker, memoryBackend, settler, openGate } = setUp();
    const [first, second] = (await reserveTwo(broker)) as [Delivery, Delivery];
    const settled = Promise.all([settler.finish(first, success('a')), settler.finish(second, success('b'))]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['store a,b']);
    openGate();
    await settled;
    expect(events).toEqual(['store a,b', 'stored', 'ack a,b']);
    await expect(broker.stats('q')).resolves.toMatchObject({ active: 0, ready: 0 });
    await expect(memoryBackend.get('b')).resolves.toMatchObject({ state: 'SUCCESS', result: 'b' });
    await broker.close();
  });

  it('does not ack when storing the records failed: the leases bring the tasks back', async () => {
    const { events, broker, settler, failStore } = setUp();
    const [first, second] = (await reserveTwo(broker)) as [Delivery, Delivery];
    const settled = Promise.allSettled([settler.finish(first, success('a')), settler.finish(second, success('b'))]);
    failStore(new Error('Redis went away'));
    const outcomes = await settled;
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(events).toEqual(['store a,b']);
    await expect(broker.stats('q')).resolves.toMatchObject({ active: 2 });
    await broker.close();
  });

  it('drain() writes a batch that is still waiting for its tick, once', async () => {
    const { events, broker, settler, openGate } = setUp();
    const [first] = (await reserveTwo(broker)) as [Delivery, Delivery];
    const finished = settler.finish(first, success('a'));
    openGate();
    await settler.drain();
    await finished;
    expect(events).toEqual(['store a', 'stored', 'ack a']);
    await broker.close();
  });

  describe('STARTED records', () => {
    // Only the grace timer is faked; the batches still flush on real microtasks and turns.
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'queueMicrotask', 'nextTick'] }));
    afterEach(() => jest.useRealTimers());

    const started = (id: string, built: string[]) => () => {
      built.push(id);
      return { record: { id, state: 'STARTED' as const, date: Date.now() }, ttl: 60_000 };
    };

    it('are written, and only then built, when the task is still running after the grace period', async () => {
      const { events, broker, settler, openGate } = setUp();
      openGate();
      const built: string[] = [];
      settler.started('a', started('a', built));
      jest.advanceTimersByTime(19);
      expect(built).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(built).toEqual(['a']);
      await settler.drain();
      expect(events).toEqual(['store a', 'stored']);
      await broker.close();
    });

    it('are never built nor written for a task that ends within the grace period', async () => {
      const { events, broker, settler, openGate } = setUp();
      openGate();
      const [first] = (await reserveTwo(broker)) as [Delivery, Delivery];
      const built: string[] = [];
      settler.started('a', started('a', built));
      await settler.finish(first, success('a'));
      jest.advanceTimersByTime(100);
      await settler.drain();
      expect(built).toEqual([]);
      expect(events).toEqual(['store a', 'stored', 'ack a']);
      await broker.close();
    });
  });

  it('acks a batch without records at once (a workflow step whose record went out before)', async () => {
    const { events, broker, settler } = setUp();
    const [first] = (await reserveTwo(broker)) as [Delivery, Delivery];
    await settler.finish(first);
    expect(events).toEqual(['ack a']);
    await broker.close();
  });
});

describe('Settler: events and failed tasks', () => {
  function eventOf(taskId: string, type: 'task-started' | 'task-received'): CeleriacEvent {
    return type === 'task-received'
      ? { type, taskId, task: 't', queue: 'q', timestamp: 1, delivery: 1 }
      : { type, taskId, task: 't', queue: 'q', timestamp: 1 };
  }

  function setUpLogged() {
    const broker = new MemoryBroker({
      prefix: 'settler-test',
      visibilityTimeout: 30_000,
      maxDeliveries: 5,
      revokeTtl: 60_000,
      failedTtl: 60_000,
      failedLimit: 10,
    });
    const memoryBackend = new MemoryBackend(new Codec());
    const calls: Array<{ records: string[]; events: string[] }> = [];
    const backend = Object.assign(Object.create(memoryBackend) as ResultBackend, {
      async store(entries: readonly StoreEntry[], events: readonly CeleriacEvent[] = []) {
        calls.push({ records: entries.map((entry) => entry.record.id), events: events.map((event) => event.type) });
        await memoryBackend.store(entries, events);
      },
    });
    return { broker, memoryBackend, calls, settler: new Settler(backend, broker) };
  }

  it('sends the events of a tick in the same store call as its records, not in a write of their own', async () => {
    const { broker, memoryBackend, calls, settler } = setUpLogged();
    const [first] = (await reserveTwo(broker)) as [Delivery, Delivery];
    settler.event(eventOf('a', 'task-received'));
    settler.event(eventOf('a', 'task-started'));
    await settler.finish(first, success('a'));
    expect(calls).toEqual([{ records: ['a'], events: ['task-received', 'task-started'] }]);
    // Events with no record to go with are written too (here by drain(); else after a short grace).
    settler.event(eventOf('b', 'task-received'));
    await settler.drain();
    expect(calls).toEqual([
      { records: ['a'], events: ['task-received', 'task-started'] },
      { records: [], events: ['task-received'] },
    ]);
    expect((await memoryBackend.events.recent(10)).map((event) => event.type)).toEqual([
      'task-received',
      'task-started',
      'task-received',
    ]);
    await broker.close();
  });

  it('writes the registry entry of a task that failed for good before its FAILURE record', async () => {
    const { broker, memoryBackend } = setUpLogged();
    const inRegistryAtStore: string[][] = [];
    const backend = Object.assign(Object.create(memoryBackend) as ResultBackend, {
      async store(entries: readonly StoreEntry[]) {
        inRegistryAtStore.push((await broker.listFailed('q')).map((task) => task.id));
        await memoryBackend.store(entries);
      },
    });
    const settler = new Settler(backend, broker);
    const [first] = (await reserveTwo(broker)) as [Delivery, Delivery];
    const failure = { task: 't', error: { name: 'Error', message: 'boom' }, attempts: 1 };
    await settler.finish(first, success('a'), failure);
    expect(inRegistryAtStore).toEqual([['a']]);
    await expect(broker.stats('q')).resolves.toMatchObject({ active: 1 });
    await broker.close();
  });

  it('acks a task that failed for good into the failed-task registry, with its failure', async () => {
    const { broker, settler } = setUpLogged();
    const [first, second] = (await reserveTwo(broker)) as [Delivery, Delivery];
    const failure = { task: 't', error: { name: 'Error', message: 'boom' }, attempts: 1 };
    await Promise.all([settler.finish(first, success('a'), failure), settler.finish(second, success('b'))]);
    expect((await broker.listFailed('q')).map((task) => ({ id: task.id, error: task.error }))).toEqual([
      { id: 'a', error: failure.error },
    ]);
    await expect(broker.stats('q')).resolves.toMatchObject({ active: 0, ready: 0 });
    await broker.close();
  });
});
