/**
 * The Celery wire format without a Python process: protocol v2 messages to and from Celeriac's,
 * keyword arguments, kombu's JSON type tags, and bodies Celeriac refuses to read (result records:
 * celery-result-format.test.ts).
 */
import { Codec, type CanvasNode } from '@celeriac/core';
import { MESSAGE_VERSION, type TaskMessage } from '@celeriac/core/internal';
import { priorityStep } from '../src/kombu-redis/keys';
import { parseKombuJson, stringifyKombuJson } from '../src/protocol/kombu-json';
import { kwargs } from '../src/protocol/kwargs';
import { fromCeleryPayload, toCeleryPayload } from '../src/protocol/message';

const codec = new Codec();

function message(fields: Partial<TaskMessage> = {}): TaskMessage {
  return {
    version: MESSAGE_VERSION,
    id: '2f1c6e0a-0000-4000-8000-000000000001',
    task: 'proj.add',
    args: [2, 3],
    queue: 'celery',
    priority: 0,
    retries: 0,
    headers: {},
    publishedAt: 1_700_000_000_000,
    ...fields,
  };
}

function body(payload: { body: string }): unknown {
  return JSON.parse(Buffer.from(payload.body, 'base64').toString('utf8'));
}

describe('Celery protocol v2 messages', () => {
  it('writes args, kwargs and an empty embed as the base64 body, and the v2 headers', () => {
    const eta = Date.parse('2026-11-26T08:00:00.000Z');
    const payload = toCeleryPayload(codec, message({ args: [2, kwargs({ y: 3 })], eta, timeLimit: 5000 }));
    expect(body(payload)).toEqual([[2], { y: 3 }, { callbacks: null, errbacks: null, chain: null, chord: null }]);
    expect(payload.headers).toMatchObject({
      task: 'proj.add',
      id: '2f1c6e0a-0000-4000-8000-000000000001',
      eta: '2026-11-26T08:00:00.000Z',
      expires: null,
      retries: 0,
      timelimit: [5, null],
      root_id: '2f1c6e0a-0000-4000-8000-000000000001',
      parent_id: null,
    });
    expect(payload.properties).toMatchObject({
      body_encoding: 'base64',
      delivery_info: { exchange: '', routing_key: 'celery' },
    });
    expect(payload['content-type']).toBe('application/json');
  });

  it('reads a message back into the same Celeriac message, kwargs as the last argument', () => {
    const sent = message({
      args: [2, kwargs({ y: 3 })],
      expires: 1_700_000_060_000,
      softTimeLimit: 2500,
      parentId: 'p',
    });
    const read = fromCeleryPayload(codec, toCeleryPayload(codec, sent), 'celery');
    expect(read).toMatchObject({ id: sent.id, task: 'proj.add', args: [2, { y: 3 }], expires: 1_700_000_060_000 });
    expect(read).toMatchObject({ softTimeLimit: 2500, parentId: 'p', publishedAt: sent.publishedAt });
    expect(read.timeLimit).toBeUndefined();
  });

  it('carries a workflow Celery cannot hold in x_celeriac under the key `flow`, and reads it back', () => {
    const callback: CanvasNode = {
      kind: 'task',
      task: 'proj.log',
      args: [],
      options: { taskId: 'cb' },
      immutable: false,
    };
    const sent = message({ workflow: { link: [callback] } });
    const payload = toCeleryPayload(codec, sent);
    const extras = codec.parse(payload.headers.x_celeriac as string) as Record<string, unknown>;
    expect(extras).toMatchObject({ flow: { link: [callback] } });
    expect(extras).not.toHaveProperty('workflow');
    const read = fromCeleryPayload(codec, payload, 'celery');
    expect(read.workflow).toEqual({ link: [callback] });
    expect(read).not.toHaveProperty('flow');
  });

  it('refuses a pickle body with CELERIAC_UNSUPPORTED_CONTENT, saying what to set', () => {
    const payload = toCeleryPayload(codec, message());
    payload['content-type'] = 'application/x-python-serialize';
    expect(() => fromCeleryPayload(codec, payload, 'celery')).toThrow(
      expect.objectContaining({
        code: 'CELERIAC_UNSUPPORTED_CONTENT',
        message: expect.stringContaining("task_serializer = 'json'"),
      }),
    );
  });

  it('refuses a protocol v1 message (no task header) with CELERIAC_INVALID_MESSAGE', () => {
    const payload = toCeleryPayload(codec, message());
    delete (payload.headers as Partial<typeof payload.headers>).task;
    expect(() => fromCeleryPayload(codec, payload, 'celery')).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_MESSAGE' }),
    );
  });

  it('refuses arguments JSON cannot carry to Python with CELERIAC_SERIALIZATION, naming where', () => {
    expect(() => toCeleryPayload(codec, message({ args: [1, { tags: new Set(['a']) }] }))).toThrow(
      expect.objectContaining({
        code: 'CELERIAC_SERIALIZATION',
        message: expect.stringContaining('[1].tags is a Set'),
      }),
    );
    expect(() => toCeleryPayload(codec, message({ args: [10n] }))).toThrow(
      expect.objectContaining({ code: 'CELERIAC_SERIALIZATION' }),
    );
  });

  it("maps priorities 0-9 to kombu's steps 0, 3, 6, 9", () => {
    expect([0, 1, 2, 3, 5, 6, 8, 9, 200, -1].map(priorityStep)).toEqual([0, 0, 0, 3, 3, 6, 6, 9, 9, 0]);
  });
});

describe("kombu's JSON", () => {
  it('reads the type tags of kombu 5.3+ as JavaScript values', () => {
    const text = JSON.stringify({
      at: { __type__: 'datetime', __value__: '2026-11-26T08:00:00' },
      price: { __type__: 'decimal', __value__: '10.25' },
      id: { __type__: 'uuid', __value__: '2f1c6e0a-0000-4000-8000-000000000001' },
      raw: { __type__: 'bytes', __value__: 'hi' },
      plain: { __type__: 'datetime', __value__: 'x', extra: 1 },
    });
    const value = parseKombuJson(text) as Record<string, unknown>;
    expect(value.at).toEqual(new Date('2026-11-26T08:00:00Z'));
    expect(value.price).toBe('10.25');
    expect(value.id).toBe('2f1c6e0a-0000-4000-8000-000000000001');
    expect(value.raw).toEqual(Buffer.from('hi'));
    expect(value.plain).toEqual({ __type__: 'datetime', __value__: 'x', extra: 1 });
  });

  it('writes Dates and Buffers as kombu 5.2 does: ISO and UTF-8 text', () => {
    expect(stringifyKombuJson({ at: new Date('2026-11-26T08:00:00Z'), raw: Buffer.from('hi') })).toBe(
      '{"at":"2026-11-26T08:00:00.000Z","raw":"hi"}',
    );
  });
});
