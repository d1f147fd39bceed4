/**
 * Bad input on PostgreSQL alone (DESIGN.md invariant 4): rows of the messages table edited by hand
 * into garbage are dead-lettered with the reason, their tasks fail with it, and the worker keeps
 * serving the tasks after them.
 */
import { TaskFailedError } from 'celeriac';
import { usePostgresE2e } from './support/postgres-e2e';

const TIMEOUT = { timeout: 20_000 };

describe('celeriac worker on PostgreSQL: rows edited by hand into garbage', () => {
  const e2e = usePostgresE2e('e2e_garbage');

  it.each(['prefork', 'inline'] as const)(
    '--pool %s: dead-letters each with the reason, and the next task runs',
    async (pool) => {
      const { prefix, spawn, app, query } = e2e();
      const worker = spawn('worker', ['-c', '2', '--pool', pool]);
      await worker.ready();
      const client = app();
      const garbage = [
        ['{"not": "json', 'undecodable message: The message is not valid JSON'],
        ['{"task": "pg.add"}', 'undecodable message: The message lacks arguments or a supported version'],
      ] as const;
      // Sent due in an hour, so that no worker claims them before they are edited.
      const edited = garbage.map(() => client.sendTask('pg.add', [1, 2], { countdown: '1h' }));
      await Promise.all(edited.map((handle) => handle.sent));
      for (const [index, [body]] of garbage.entries()) {
        const rows = await query(`UPDATE "${prefix}".messages SET body = $2, run_at = 0 WHERE id = $1 RETURNING id`, [
          edited[index]!.id,
          body,
        ]);
        expect(rows).toHaveLength(1);
      }
      // Due now but announced to nobody: the next send wakes the worker, whose claim takes them first.
      await expect(client.sendTask<number>('pg.add', [2, 3]).get(TIMEOUT)).resolves.toBe(5);
      for (const handle of edited) {
        const failure = await handle.get({ ...TIMEOUT, propagate: false });
        expect(failure).toBeInstanceOf(TaskFailedError);
        expect((failure as TaskFailedError).remote.code).toBe('CELERIAC_INVALID_MESSAGE');
      }
      const reasons = new Map((await client.broker.listDead('default')).map((letter) => [letter.id, letter.reason]));
      for (const [index, [body, reason]] of garbage.entries()) {
        expect(reasons.get(edited[index]!.id)).toContain(reason);
        const [letter] = await query<{ body: string }>(`SELECT body FROM "${prefix}".dead_letters WHERE id = $1`, [
          edited[index]!.id,
        ]);
        expect(letter?.body).toBe(body);
      }
      // Still serving; once it drained (a result is stored before its ack), nothing else is left anywhere.
      await expect(client.sendTask<number>('pg.add', [4, 4]).get(TIMEOUT)).resolves.toBe(8);
      worker.signal('SIGTERM');
      await expect(worker.exited).resolves.toEqual({ code: 0, signal: null });
      await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 0, active: 0, dead: 2 });
      expect(worker.stderr.join('\n')).not.toMatch(/Unhandled|TypeError/);
    },
  );
});
