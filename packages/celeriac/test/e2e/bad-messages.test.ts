import { TaskFailedError } from 'celeriac';
import { injectReady, rawMessage } from '@celeriac/test-support';
import { useE2e } from './support/worker-process';

describe('celeriac worker: messages with a bad field, written straight into Redis', () => {
  const e2e = useE2e('e2e-bad-messages');

  it.each(['prefork', 'inline'] as const)(
    '--pool %s: dead-letters each at once, naming the field, and the worker keeps serving',
    async (pool) => {
      const { fixture, workers } = e2e();
      const bad = [
        [
          rawMessage('e2e.add', [1, 2], { flow: { json: { then: 'x', link: 5 } } }),
          'invalid message: flow.then must be a list of workflow nodes',
        ],
        [
          rawMessage('e2e.add', [1, 2], { flow: { json: { member: {} } } }),
          'invalid message: flow.member.group must be',
        ],
        [rawMessage('e2e.add', [1, 2], { timeLimit: 'soon' }), 'invalid message: timeLimit must be'],
      ] as const;
      for (const [{ id, body }] of bad) await injectReady(fixture.redis(), fixture.prefix, 'default', id, body);
      const worker = workers.start(['-c', '2', '--pool', pool]);
      await worker.ready();
      const client = fixture.app();
      for (const [{ id }] of bad) {
        const failure = await client.result(id).get({ timeout: 20_000, propagate: false });
        expect(failure).toBeInstanceOf(TaskFailedError);
        expect((failure as TaskFailedError).remote.name).toBe('InvalidMessageError');
      }
      const reasons = Object.fromEntries(
        (await client.broker.listDead('default')).map((letter) => [letter.id, letter.reason]),
      );
      for (const [{ id }, reason] of bad) expect(reasons[id]).toContain(reason);
      await expect(client.sendTask('e2e.add', [2, 3]).get({ timeout: 20_000 })).resolves.toBe(5);
      expect(worker.child.exitCode).toBeNull();
      expect(worker.stderr.join('\n')).not.toMatch(/Unhandled|TypeError/);
    },
  );

  it.each(['prefork', 'fork'] as const)(
    '--pool %s: logs a task hook that throws in the child through the worker, and the outcome stands',
    async (pool) => {
      const { fixture, workers } = e2e();
      const worker = workers.start(['-c', '1', '--pool', pool]);
      await worker.ready();
      const client = fixture.app();
      await expect(client.sendTask('e2e.badHooks', ['kept']).get({ timeout: 20_000 })).resolves.toBe('kept');
      const logged = await worker.waitForLog((line) => line.hook === 'onSuccess', 'the hook error');
      expect(logged).toMatchObject({ error: expect.objectContaining({ message: 'onSuccess bug' }) });
      await expect(client.sendTask('e2e.add', [1, 1]).get({ timeout: 20_000 })).resolves.toBe(2);
    },
  );
});
