import { Codec, SerializationError } from '@celeriac/core';

describe('Codec round trips', () => {
  const codec = new Codec();
  const roundTrip = (value: unknown) => codec.parse(codec.stringify(value, 'the value'));
  const viaSerialize = (value: unknown) =>
    codec.deserialize(JSON.parse(JSON.stringify(codec.serialize(value, 'the value'))));

  it.each([
    ['plain JSON data', { a: 1, b: ['x', true, null], c: { d: 'e' } }],
    ['a top-level string', 'text'],
    ['null', null],
    ['special numbers', [Number.NaN, Infinity, -Infinity, -0]],
    ['undefined in arrays and objects', { gone: undefined, list: [undefined, 1] }],
    ['a Date inside plain data', { meta: { at: new Date(86_400_000) } }],
    [
      'Map, Set and BigInt',
      {
        map: new Map<unknown, unknown>([
          [1, 'one'],
          ['k', new Set([2n])],
        ]),
        big: -(2n ** 65n),
      },
    ],
    ['RegExp and URL', [/a.c/m, new URL('https://example.com/x?y=1')]],
    ['a null-prototype object', Object.assign(Object.create(null) as object, { a: 1 })],
  ])('%s survives stringify/parse and serialize/deserialize', (_, value) => {
    expect(roundTrip(value)).toEqual(value);
    expect(viaSerialize(value)).toEqual(value);
  });

  it('keeps -0 and undefined distinct from 0 and a missing key', () => {
    const back = roundTrip({ zero: -0, gone: undefined }) as { zero: number };
    expect(Object.is(back.zero, -0)).toBe(true);
    expect(Object.keys(back)).toEqual(['zero', 'gone']);
  });

  it('restores shared and circular references', () => {
    const shared = { n: 1 };
    const cyclic: { self?: unknown; pair: unknown[] } = { pair: [shared, shared] };
    cyclic.self = cyclic;
    const back = roundTrip(cyclic) as typeof cyclic;
    expect(back.self).toBe(back);
    expect(back.pair[0]).toBe(back.pair[1]);
  });

  it('carries Errors with their name and message', () => {
    const back = roundTrip({ error: new RangeError('too big') }) as { error: Error };
    expect(back.error).toBeInstanceOf(Error);
    expect(back.error).toMatchObject({ name: 'RangeError', message: 'too big' });
  });
});

describe('Codec refusals', () => {
  const codec = new Codec();
  const problem = (value: unknown) => {
    try {
      codec.assertSerializable(value, 'argument 1 of t');
    } catch (error) {
      expect(error).toBeInstanceOf(SerializationError);
      return (error as SerializationError).message;
    }
    return undefined;
  };

  it('names the path of the first value that cannot travel', () => {
    expect(problem({ a: [1, { b: () => 1 }] })).toMatch(
      /^Cannot serialize argument 1 of t at \.a\[1\]\.b: it is a function/,
    );
    expect(problem(new Set([1, Symbol('x')]))).toContain('at <set item 1>: it is a symbol');
    expect(problem(new Map([[Symbol('k'), 1]]))).toContain('at <map key Symbol(k)>');
    expect(problem(Symbol('top'))).toMatch(/^Cannot serialize argument 1 of t: it is a symbol/);
  });

  it('refuses instances of unregistered classes, and suggests registering them', () => {
    class Money {
      constructor(readonly cents: number) {}
    }
    expect(problem({ price: new Money(5) })).toContain('at .price: it is an instance of Money');
    expect(problem(new Money(5))).toContain('app.registerType(Money)');
    const withMoney = new Codec();
    withMoney.registerClass(Money);
    expect(() => withMoney.assertSerializable({ price: new Money(5) }, 'x')).not.toThrow();
    const back = withMoney.parse(withMoney.stringify({ price: new Money(5) }, 'x')) as { price: Money };
    expect(back.price).toBeInstanceOf(Money);
    expect(back.price.cents).toBe(5);
  });

  it('stringify refuses what assertSerializable refuses', () => {
    expect(() => codec.stringify({ f: () => 1 }, 'the result of t')).toThrow(
      expect.objectContaining({
        code: 'CELERIAC_SERIALIZATION',
        message: expect.stringContaining('the result of t at .f'),
      }),
    );
  });

  it('accepts values a registered custom serializer handles', () => {
    const withBuffers = new Codec();
    withBuffers.registerCustom<Buffer, string>(
      {
        isApplicable: (value): value is Buffer => Buffer.isBuffer(value),
        serialize: (value) => value.toString('hex'),
        deserialize: (hex) => Buffer.from(hex, 'hex'),
      },
      'buffer',
    );
    const back = withBuffers.parse(withBuffers.stringify({ data: Buffer.from([1, 2, 255]) }, 'x')) as { data: Buffer };
    expect(Buffer.isBuffer(back.data)).toBe(true);
    expect([...back.data]).toEqual([1, 2, 255]);
  });
});
