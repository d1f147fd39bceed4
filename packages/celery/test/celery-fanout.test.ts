/**
 * Celery's fanout messages without a Python process: the pidbox revoke command both ways (one as
 * Celery 5.2 sends it), the channels kombu publishes on, and Celeriac events as Celery events.
 */
import { fanoutBody, fanoutChannel } from '../src/kombu-redis/fanout';
import { revocationsInMessage, revokeMessage } from '../src/kombu-redis/pidbox-message';
import { toCeleryEvent } from '../src/protocol/events';

/** A pidbox message for `body`, in kombu's envelope. */
function pidbox(body: unknown): string {
  return JSON.stringify({
    body: Buffer.from(JSON.stringify(body)).toString('base64'),
    'content-encoding': 'utf-8',
    'content-type': 'application/json',
    headers: { clock: 1, expires: 0 },
    properties: { body_encoding: 'base64', delivery_info: { exchange: 'celery.pidbox', routing_key: '' } },
  });
}

const revoke = (args: Record<string, unknown>, target: Record<string, unknown> = {}) =>
  pidbox({ method: 'revoke', arguments: args, destination: null, pattern: null, matcher: null, ...target });

describe('Celery pidbox revoke', () => {
  it("reads Python's app.control.revoke(id, terminate=True) as Celery 5.2 sends it", () => {
    // Captured from `app.control.revoke('abc-123', terminate=True)` (Celery 5.2.6, kombu 5.2.4).
    const sent =
      '{"body": "eyJtZXRob2QiOiAicmV2b2tlIiwgImFyZ3VtZW50cyI6IHsidGFza19pZCI6ICJhYmMtMTIzIiwgInRlcm1pbmF0ZSI6IHRy' +
      'dWUsICJzaWduYWwiOiAiU0lHVEVSTSJ9LCAiZGVzdGluYXRpb24iOiBudWxsLCAicGF0dGVybiI6IG51bGwsICJtYXRjaGVyIjogbnVsbH0' +
      '=", "content-encoding": "utf-8", "content-type": "application/json", "headers": {"clock": 1, "expires": ' +
      '1795686328.7847013}, "properties": {"delivery_mode": 2, "delivery_info": {"exchange": "celery.pidbox", ' +
      '"routing_key": ""}, "priority": 0, "body_encoding": "base64", ' +
      '"delivery_tag": "6e493c70-236f-4f9a-98c0-352eab38a8ab"}}';
    expect(revocationsInMessage(sent, { fromPython: true })).toEqual([
      { id: 'abc-123', terminate: true, signal: 'SIGTERM' },
    ]);
  });

  it('reads a list of ids, KILL as SIGKILL, and the terminate command', () => {
    expect(revocationsInMessage(revoke({ task_id: ['a', 'b'], terminate: true, signal: 'KILL' }))).toEqual([
      { id: 'a', terminate: true, signal: 'SIGKILL' },
      { id: 'b', terminate: true, signal: 'SIGKILL' },
    ]);
    expect(revocationsInMessage(revoke({ task_id: 'a' }))).toEqual([{ id: 'a', terminate: false }]);
    expect(
      revocationsInMessage(pidbox({ method: 'terminate', arguments: { task_id: 'c', signal: 'SIGTERM' } })),
    ).toEqual([{ id: 'c', terminate: true, signal: 'SIGTERM' }]);
  });

  it('ignores other commands, commands to named workers, and what is not JSON', () => {
    expect(revocationsInMessage(pidbox({ method: 'ping', arguments: {} }))).toEqual([]);
    expect(revocationsInMessage(revoke({ task_id: 'a' }, { destination: ['py@host'] }))).toEqual([]);
    expect(revocationsInMessage(revoke({ task_id: 'a' }, { pattern: 'py@*', matcher: 'glob' }))).toEqual([]);
    expect(revocationsInMessage('not json')).toEqual([]);
    expect(
      revocationsInMessage(JSON.stringify({ body: 'gASV', 'content-type': 'application/x-python-serialize' })),
    ).toEqual([]);
  });

  it('sends what Celery sends, and reads its own command back', () => {
    const text = revokeMessage({ id: 'x', terminate: true, signal: 'SIGKILL' });
    expect(fanoutBody(text)).toEqual({
      method: 'revoke',
      arguments: { task_id: 'x', terminate: true, signal: 'SIGKILL' },
      destination: null,
      pattern: null,
      matcher: null,
    });
    expect(JSON.parse(text)).toMatchObject({
      headers: { expires: 0 },
      properties: { delivery_info: { exchange: 'celery.pidbox', routing_key: '' }, body_encoding: 'base64' },
    });
    expect(revocationsInMessage(text)).toEqual([{ id: 'x', terminate: true, signal: 'SIGKILL' }]);
    // Celeriac's workers hear their own revocations on Celeriac's channel: not a second time from the pidbox.
    expect(revocationsInMessage(text, { fromPython: true })).toEqual([]);
  });

  it("publishes on kombu's channel names: the key prefix, the db, the exchange and the routing key", () => {
    expect(fanoutChannel('', 0, 'celery.pidbox')).toBe('/0.celery.pidbox');
    expect(fanoutChannel('app:', 3, 'celeryev', 'task.succeeded')).toBe('app:/3.celeryev/task.succeeded');
  });
});

describe('Celery events', () => {
  const base = { taskId: 't1', task: 'ts.add', queue: 'ts', timestamp: 1_700_000_000_500, hostname: 'h:1', pid: 7 };

  it('sends a task event with the fields Celery gives it, seconds for times', () => {
    const event = toCeleryEvent({ ...base, type: 'task-succeeded', runtime: 250, result: '{"json":5}' });
    expect(event?.routingKey).toBe('task.succeeded');
    expect(event?.body).toMatchObject({
      type: 'task-succeeded',
      uuid: 't1',
      hostname: 'h:1',
      pid: 7,
      result: '5',
      runtime: 0.25,
      timestamp: 1_700_000_000.5,
    });
  });

  it("writes an error as Python's repr, an expiry as task-revoked, and nothing for task-progress", () => {
    const failed = toCeleryEvent({ ...base, type: 'task-failed', error: { name: 'TypeError', message: "it's bad" } });
    expect(failed?.body.exception).toBe("TypeError('it\\'s bad')");
    expect(toCeleryEvent({ ...base, type: 'task-expired' })?.body).toMatchObject({
      type: 'task-revoked',
      expired: true,
    });
    expect(toCeleryEvent({ ...base, type: 'task-progress', state: 'PROGRESS' })).toBeUndefined();
  });

  it('raises the Lamport clock with each event', () => {
    const first = toCeleryEvent({ ...base, type: 'task-started' })?.body.clock as number;
    const second = toCeleryEvent({ ...base, type: 'task-started' })?.body.clock as number;
    expect(second).toBeGreaterThan(first);
  });
});
