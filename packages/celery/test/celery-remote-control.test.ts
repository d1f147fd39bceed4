/**
 * Celery's remote-control commands as a Celeriac worker reads them, without a Python process: which
 * become Celeriac requests (and which are left to Python workers), where the reply goes, and the
 * shapes the answers take (what `celery inspect` and Flower read). The e2e test sends them from Python.
 */
import type { ControlReply } from '@celeriac/core';
import { controlCallInMessage } from '../src/kombu-redis/pidbox-message';
import { celeryReplyValue } from '../src/protocol/remote-control';

/** A pidbox message for `body`, in kombu's envelope. */
function pidbox(body: Record<string, unknown>): string {
  return JSON.stringify({
    body: Buffer.from(JSON.stringify({ destination: null, pattern: null, matcher: null, ...body })).toString('base64'),
    'content-encoding': 'utf-8',
    'content-type': 'application/json',
    headers: { clock: 1, expires: 0 },
    properties: { body_encoding: 'base64', delivery_info: { exchange: 'celery.pidbox', routing_key: '' } },
  });
}

const replyTo = { exchange: 'reply.celery.pidbox', routing_key: 'r-1' };
const id = () => 'req-1';
const ok = (value: unknown): ControlReply => ({ hostname: 'w@h', ok: true, value });

describe('Celery remote control read by a Celeriac worker', () => {
  it('turns inspect and control methods into Celeriac requests, with their reply address and ticket', () => {
    const call = controlCallInMessage(
      pidbox({ method: 'pool_grow', arguments: { n: 2 }, destination: ['w@h'], ticket: 't-1', reply_to: replyTo }),
      id,
    );
    expect(call).toEqual({
      method: 'pool_grow',
      request: { id: 'req-1', command: 'pool-grow', argument: 2, destination: ['w@h'] },
      replyTo: { exchange: 'reply.celery.pidbox', routingKey: 'r-1', ticket: 't-1' },
    });
    expect(controlCallInMessage(pidbox({ method: 'add_consumer', arguments: { queue: 'extra' } }), id)).toEqual({
      method: 'add_consumer',
      request: { id: 'req-1', command: 'add-consumer', argument: 'extra' },
    });
    expect(controlCallInMessage(pidbox({ method: 'active_queues' }), id)?.request.command).toBe('stats');
  });

  it('leaves alone revoke (heard apart), unknown methods, pattern destinations and what is not JSON', () => {
    expect(controlCallInMessage(pidbox({ method: 'revoke', arguments: { task_id: 'a' } }), id)).toBeUndefined();
    expect(controlCallInMessage(pidbox({ method: 'memdump' }), id)).toBeUndefined();
    expect(controlCallInMessage(pidbox({ method: 'ping', pattern: 'py@.*' }), id)).toBeUndefined();
    expect(controlCallInMessage('not json', id)).toBeUndefined();
  });

  it('answers in the shapes Celery workers give', () => {
    const call = (method: string, argument?: string) => ({
      method,
      request: { id: 'r', command: 'ping' as const, ...(argument ? { argument } : {}) },
    });
    expect(celeryReplyValue(call('ping'), ok({ pong: true }))).toEqual({ ok: 'pong' });
    const held = { id: 'a', name: 't', queue: 'q', args: '[1]', started: 1_500, childPid: 42, deliveries: 2 };
    expect(celeryReplyValue(call('active'), ok([held]))).toEqual([
      expect.objectContaining({
        id: 'a',
        name: 't',
        type: 't',
        hostname: 'w@h',
        time_start: 1.5,
        worker_pid: 42,
        delivery_info: expect.objectContaining({ routing_key: 'q', redelivered: true }),
      }),
    ]);
    const stats = { pid: 7, pool: 'inline', concurrency: 10, queues: ['q'], uptime: 65_000, rss: 2048 };
    expect(celeryReplyValue(call('stats'), ok(stats))).toMatchObject({
      pid: 7,
      uptime: 65,
      pool: { 'max-concurrency': 10 },
      rusage: { maxrss: 2 },
    });
    expect(celeryReplyValue(call('active_queues'), ok(stats))).toEqual([
      expect.objectContaining({ name: 'q', routing_key: 'q', exchange: expect.objectContaining({ name: 'q' }) }),
    ]);
    expect(celeryReplyValue(call('registered'), ok(['t']))).toEqual(['t']);
    expect(celeryReplyValue(call('cancel_consumer', 'q'), ok({}))).toEqual({ ok: 'no longer consuming from q' });
    expect(celeryReplyValue(call('pool_grow'), { hostname: 'w@h', ok: false, error: 'no' })).toEqual({ error: 'no' });
  });
});
