import { Codec } from '@celeriac/core';
import { isCutPayload, plainJson, readPayload, showValue } from '@celeriac/core/internal';

describe('values shown as the user passed them', () => {
  const codec = new Codec();
  const rich = [new Map<string, unknown>([['k', 1n]]), new Set(['a']), new Date(0), 2n ** 70n];

  it('a payload decodes to the value itself, not the wire form', () => {
    const value = readPayload(codec, codec.stringify(rich, 'args'));
    expect(value).toEqual(rich);
    expect(showValue(value)).toBe(
      "[ Map(1) { 'k' => 1n }, Set(1) { 'a' }, 1970-01-01T00:00:00.000Z, 1180591620717411303424n ]",
    );
  });

  it('--json gets plain JSON data: Maps as objects, Sets as lists, BigInts as numbers while safe', () => {
    expect(plainJson(rich)).toEqual([{ k: 1 }, ['a'], '1970-01-01T00:00:00.000Z', '1180591620717411303424']);
    expect(plainJson(new Map([[1, 'one']]))).toEqual([[1, 'one']]);
    expect(plainJson({ error: new TypeError('bad'), gone: undefined, list: [undefined] })).toEqual({
      error: { name: 'TypeError', message: 'bad' },
      list: [null],
    });
  });

  it('a payload cut to its size limit shows its start, marked as cut', () => {
    const text = codec.stringify(rich, 'args').slice(0, 20);
    const value = readPayload(codec, text);
    expect(isCutPayload(value)).toBe(true);
    expect(showValue(value)).toBe(`${text} (cut)`);
    expect(showValue('x'.repeat(50), 10)).toBe(`'xxxxxxxx…`);
  });
});
