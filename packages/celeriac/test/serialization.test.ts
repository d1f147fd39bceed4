import { currentTask, SerializationError } from 'celeriac';
import { useApp } from './support/app';

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}

  length(): number {
    return Math.hypot(this.x, this.y);
  }
}

describe('arguments and results travel through superjson', () => {
  const t = useApp();

  function echo() {
    return t.app.task('echo', (value: unknown) => value);
  }

  it('Date, Map, Set, BigInt, undefined, RegExp and nested Errors survive a round trip', async () => {
    const value = {
      when: new Date('2024-02-29T12:00:00Z'),
      lookup: new Map<string, unknown>([
        ['a', 1],
        ['b', new Set([1n, 2n])],
      ]),
      tags: new Set(['x', 'y']),
      big: 2n ** 80n,
      missing: undefined,
      holes: [1, undefined, 3],
      pattern: /ab+c/gi,
      nested: { problem: new TypeError('inner problem') },
    };
    await t.startWorker();
    const back = (await echo().delay(value)) as typeof value;
    expect(back).toEqual(value);
    expect(back.when).toBeInstanceOf(Date);
    expect(back.lookup.get('b')).toEqual(new Set([1n, 2n]));
    expect(Object.keys(back)).toContain('missing');
    expect(back.nested.problem).toBeInstanceOf(Error);
    expect(back.nested.problem).toMatchObject({ name: 'TypeError', message: 'inner problem' });
  });

  it.each([
    ['a function', [1, () => 2], 'argument 2 of echo: it is a function'],
    ['a symbol', [Symbol('s')], 'argument 1 of echo: it is a symbol'],
    ['a class instance', [new Point(1, 2)], 'argument 1 of echo: it is an instance of Point'],
    ['a nested function', [{ list: [0, { fn: Math.max }] }], 'argument 1 of echo at .list[1].fn: it is a function'],
    ['a Map value', [new Map([['k', Symbol('v')]])], 'argument 1 of echo at .get(k): it is a symbol'],
  ])('throws SerializationError synchronously from delay for %s, naming the argument', async (_, args, message) => {
    const task = echo() as { delay(...args: unknown[]): unknown };
    let thrown: unknown;
    try {
      task.delay(...args);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SerializationError);
    expect(thrown).toMatchObject({ code: 'CELERIAC_SERIALIZATION', message: expect.stringContaining(message) });
    expect(await t.app.broker.stats('default')).toMatchObject({ ready: 0 });
  });

  it('instances of a class registered with app.registerType round-trip with their prototype', async () => {
    t.app.registerType(Point);
    const stretch = t.app.task('stretch', (point: Point, by: number) => {
      expect(point).toBeInstanceOf(Point);
      return new Point(point.x * by, point.y * by);
    });
    await t.startWorker();
    const result = await stretch.delay(new Point(3, 4), 2);
    expect(result).toBeInstanceOf(Point);
    expect(result.length()).toBe(10);
  });

  it('a custom serializer registered with app.registerSerializer carries other types', async () => {
    t.app.registerSerializer('buffer', {
      isApplicable: (value): value is Buffer => Buffer.isBuffer(value),
      serialize: (value: Buffer) => value.toString('base64'),
      deserialize: (text: string) => Buffer.from(text, 'base64'),
    });
    const size = t.app.task('size', (data: Buffer) => ({ bytes: data.length, copy: data }));
    await t.startWorker();
    const result = await size.delay(Buffer.from('héllo'));
    expect(result.bytes).toBe(6);
    expect(Buffer.isBuffer(result.copy)).toBe(true);
    expect(result.copy.toString()).toBe('héllo');
  });
});

describe('maxMessageSize', () => {
  const t = useApp({ maxMessageSize: 1_024 });

  it('progress() with metadata that cannot travel rejects in the task: a SerializationError naming it', async () => {
    const report = t.app.task('report.bad', async () => {
      try {
        await currentTask().progress({ step: 1, onDone: () => 'code, not data' });
        return 'stored';
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    });
    await t.startWorker();
    await expect(report.delay()).resolves.toMatch(
      /^SerializationError: Cannot serialize the PROGRESS metadata of report\.bad at \.?onDone/,
    );
  });

  it('throws CELERIAC_MESSAGE_TOO_LARGE from delay for a message over the limit', async () => {
    const store = t.app.task('store', (text: string) => text.length);
    expect(() => store.delay('x'.repeat(2_000))).toThrow(
      expect.objectContaining({ code: 'CELERIAC_MESSAGE_TOO_LARGE', message: expect.stringContaining('1024') }),
    );
    await t.startWorker();
    await expect(store.delay('small')).resolves.toBe(5);
  });
});
