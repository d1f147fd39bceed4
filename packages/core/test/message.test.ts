import { Codec } from '@celeriac/core';
import {
  decodeMessage,
  encodeMessage,
  envelopeOf,
  MESSAGE_VERSION,
  readCheckedMessage,
  type TaskMessage,
} from '@celeriac/core/internal';

const codec = new Codec();

function message(fields: Partial<TaskMessage> = {}): TaskMessage {
  return {
    version: MESSAGE_VERSION,
    id: 'task-1',
    task: 'math.add',
    args: [2, new Date(0), 3n],
    queue: 'default',
    priority: 0,
    retries: 0,
    headers: {},
    publishedAt: 1_700_000_000_000,
    ...fields,
  };
}

describe('task messages', () => {
  it('encode and decode round-trip, arguments included', () => {
    const original = message({ eta: 5, expires: 10, headers: { a: 'b' } });
    expect(decodeMessage(codec, encodeMessage(codec, original))).toEqual(original);
  });

  it('carry the workflow under the wire key `flow`, as messages already queued do', () => {
    const step = { kind: 'task', task: 'next', args: [new Date(0)], options: { taskId: 's2' }, immutable: false };
    const workflow = { then: [step] };
    const original = message({ workflow: workflow as unknown as TaskMessage['workflow'] });
    const wire = JSON.parse(encodeMessage(codec, original)) as Record<string, unknown>;
    expect(wire).toHaveProperty('flow');
    expect(wire).not.toHaveProperty('workflow');
    expect(decodeMessage(codec, encodeMessage(codec, original))).toEqual(original);
    // A message as the release before the rename wrote it.
    const earlier = JSON.stringify({ ...message({ args: [1] }), args: { json: [1] }, flow: codec.serialize(workflow) });
    const read = decodeMessage(codec, earlier);
    expect(read.workflow).toEqual(workflow);
    expect(read).not.toHaveProperty('flow');
    // `workflow` is the decoded name only: a wire message's own `workflow` key is not read.
    const stray = JSON.stringify({ ...message({ args: [1] }), args: { json: [1] }, workflow });
    expect(decodeMessage(codec, stray)).not.toHaveProperty('workflow');
  });

  it('with a secret: a signed message decodes, a tampered, foreign or unsigned one does not', () => {
    const signed = encodeMessage(codec, message(), { secret: 's3cret' });
    expect(signed.startsWith('hmac-sha256:')).toBe(true);
    expect(decodeMessage(codec, signed, { secret: 's3cret' }).id).toBe('task-1');
    const tampered = signed.replace('"math.add"', '"admin.drop"');
    expect(() => decodeMessage(codec, tampered, { secret: 's3cret' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_BAD_SIGNATURE' }),
    );
    expect(() => decodeMessage(codec, signed, { secret: 'other' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_BAD_SIGNATURE' }),
    );
    expect(() => decodeMessage(codec, encodeMessage(codec, message()), { secret: 's3cret' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_BAD_SIGNATURE', message: expect.stringContaining('not signed') }),
    );
  });

  it('refuses text that is not a message of this version', () => {
    const invalid = expect.objectContaining({ code: 'CELERIAC_INVALID_MESSAGE' });
    expect(() => decodeMessage(codec, '{not json')).toThrow(invalid);
    expect(() => decodeMessage(codec, JSON.stringify({ id: 'x', task: 't', args: { json: [] }, queue: 'q' }))).toThrow(
      invalid,
    );
    const future = JSON.parse(encodeMessage(codec, message())) as Record<string, unknown>;
    expect(() => decodeMessage(codec, JSON.stringify({ ...future, version: 99 }))).toThrow(invalid);
    expect(() => decodeMessage(codec, JSON.stringify({ ...future, args: { json: 'not a list' } }))).toThrow(invalid);
  });

  it.each([
    ['resultTtl', -5],
    ['timeLimit', 'soon'],
    ['priority', null],
    ['expires', Number.MAX_VALUE * 10],
    ['replyTo', 42],
    ['headers', 'x'],
    ['dependsOn', [1]],
    ['ignoreResult', 'yes'],
  ])('refuses a message whose %s is %p, naming the field', (field, value) => {
    const wire = JSON.parse(encodeMessage(codec, message())) as Record<string, unknown>;
    expect(() => decodeMessage(codec, JSON.stringify({ ...wire, [field]: value }))).toThrow(
      expect.objectContaining({
        code: 'CELERIAC_INVALID_MESSAGE',
        problem: expect.stringMatching(new RegExp(`^${field} must be`)),
      }),
    );
  });

  it('refuses to encode a message over maxBytes', () => {
    expect(() => encodeMessage(codec, message({ args: ['x'.repeat(500)] }), { maxBytes: 400 })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_MESSAGE_TOO_LARGE', message: expect.stringContaining('math.add') }),
    );
  });

  it('envelopeOf keeps the routing data and the body', () => {
    expect(envelopeOf(message({ priority: 4, eta: 99 }), 'body', true)).toEqual({
      id: 'task-1',
      queue: 'default',
      priority: 4,
      eta: 99,
      idempotent: true,
      body: 'body',
    });
    expect(envelopeOf(message(), 'body', false)).not.toHaveProperty('eta');
  });

  describe('readCheckedMessage (a pool child reading what its worker checked)', () => {
    class Money {
      constructor(readonly cents: number) {}
    }
    const withMoney = new Codec();
    withMoney.registerClass(Money);
    const workflow = { chain: [{ task: 'next', args: [new Money(1)] }] } as unknown as TaskMessage['workflow'];

    it.each([
      ['unsigned', {}],
      ['signed', { secret: 's3cret' }],
    ])(
      '%s: gives the fields and the arguments, registered types included, and leaves the workflow out',
      (_, options) => {
        const original = message({
          args: [new Money(250), new Date(0), 3n],
          headers: { a: 'b' },
          parentId: 'p',
          workflow,
        });
        const text = encodeMessage(withMoney, original, options);
        const read = readCheckedMessage(withMoney, text);
        const { workflow: _workflow, ...rest } = original;
        expect(read).toEqual(rest);
        expect(read.args[0]).toBeInstanceOf(Money);
        expect(read).not.toHaveProperty('workflow');
        expect(read).not.toHaveProperty('flow');
      },
    );

    it('fails with CELERIAC_INVALID_MESSAGE when its codec lacks a type the arguments use', () => {
      // A child that loaded another version of the app module, without app.registerType(Money).
      const text = encodeMessage(withMoney, message({ args: [new Money(1)] }));
      expect(() => readCheckedMessage(codec, text)).toThrow(
        expect.objectContaining({ code: 'CELERIAC_INVALID_MESSAGE', message: expect.stringContaining('Money') }),
      );
    });
  });
});
