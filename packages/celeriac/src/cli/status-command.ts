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
  /** Present when the worker autoscales: `concurrency` is its size now. */
  autoscale?: { min: number; max: number };
  queues: string[];
  uptime: number;
  processed: number;
  /** Tasks running now. */
  active: number;
  /** Tasks held for a slot, not running yet (absent from workers before this field was answered). */
  reserved?: number;
}

/** `celeriac status`. */
export function statusCommand(): Command {
  return withOpsOptions(new Command('status'))
    .description(
      'Show the live workers (hostname, pid, pool, concurrency with autoscale bounds, queues, uptime, tasks ' +
        "done, tasks running and reserved for a slot, last heartbeat) and every queue's counts.",
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
                ['WORKER', 'PID', 'POOL', 'CONC', 'QUEUES', 'UPTIME', 'DONE', 'ACTIVE', 'RESERVED', 'HEARTBEAT'],
                workers.map((w) => [
                  w.hostname,
                  String(w.pid),
                  w.pool,
                  w.autoscale === undefined
                    ? String(w.concurrency)
                    : `${w.concurrency} (${w.autoscale.min}..${w.autoscale.max})`,
                  w.queues.join(','),
                  ago(w.uptime),
                  String(w.processed),
                  String(w.active),
                  w.reserved === undefined ? '-' : String(w.reserved),
                  w.heartbeat === null ? '-' : `${ago(now - w.heartbeat)} ago`,
                ]),
              ),
        );
        console.log('');
        console.log(formatQueueTable(queues));
      }),
    );
}
