/** `celeriac status`: the live workers (each answers a stats request) and every queue's counts. */
import { Command } from 'commander';
import { brokerSupports } from '@celeriac/core';
import { ago, withOpsApp, withOpsOptions, type OpsFlags } from './ops-app';
import { formatQueueTable } from './queue-table';
import { formatTable } from './table';

interface WorkerStats {
  hostname: string;
  pid: number;
  pool: string;
  concurrency: number;
  queues: string[];
  uptime: number;
  processed: number;
  active: number;
}

/** `celeriac status`. */
export function statusCommand(): Command {
  return withOpsOptions(new Command('status'))
    .description(
      'Show the live workers (hostname, pid, pool, concurrency, queues, uptime, tasks done, last heartbeat) and ' +
        "every queue's counts.",
    )
    .action((flags: OpsFlags) =>
      withOpsApp(flags, 'status', async (app) => {
        // The queues first: an unreachable broker fails there with a clear error, before the wait for workers.
        const queues = await app.queues.list();
        const [replies, beats] = await Promise.all([
          app.control.inspect('stats', { timeout: flags.timeout }),
          brokerSupports(app.broker, 'workerRecords') ? app.broker.listWorkers() : [],
        ]);
        const lastBeat = new Map(beats.map((beat) => [beat.hostname, beat.heartbeat]));
        const now = Date.now();
        const workers = replies
          .filter((reply) => reply.ok)
          .map((reply) => ({ ...(reply.value as WorkerStats), heartbeat: lastBeat.get(reply.hostname) ?? null }))
          .sort((a, b) => a.hostname.localeCompare(b.hostname));
        if (flags.json) return console.log(JSON.stringify({ workers, queues }, null, 2));
        console.log(
          workers.length === 0
            ? `No worker answered within ${flags.timeout} ms.`
            : formatTable(
                ['WORKER', 'PID', 'POOL', 'CONC', 'QUEUES', 'UPTIME', 'DONE', 'ACTIVE', 'HEARTBEAT'],
                workers.map((w) => [
                  w.hostname,
                  String(w.pid),
                  w.pool,
                  String(w.concurrency),
                  w.queues.join(','),
                  ago(w.uptime),
                  String(w.processed),
                  String(w.active),
                  w.heartbeat === null ? '-' : `${ago(now - w.heartbeat)} ago`,
                ]),
              ),
        );
        console.log('');
        console.log(formatQueueTable(queues));
      }),
    );
}
