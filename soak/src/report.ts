/**
 * The soak's report: what was sent and how each task ended for its caller, what ran twice and the
 * fault just before it, the garbage's dead letters, workers that stopped taking tasks (a probe on
 * their own queue not started while they were up and the broker answered), workers that died by
 * themselves or did not exit on SIGTERM, latency and memory. `ok` is false when anything is lost,
 * wrong, unresolved, stuck or hung.
 */
import { readFileSync } from 'node:fs';
import type { DeadLetter, TaskRecord } from 'celeriac';
import type { InjectedFault } from './faults';
import type { WorkerRecord } from './fleet';
import type { SentTask } from './sender';

/** A probe not started this long after it was sent, while its worker was up, means a stuck worker (ms). */
const STUCK_AFTER_MS = 30_000;
/** How long after a fault its effects excuse a late probe or explain a second run (ms). */
const FAULT_SHADOW_MS = 25_000;

/** Everything the report is made from. */
export interface SoakFacts {
  sent: readonly SentTask[];
  runsFile: string;
  faults: readonly InjectedFault[];
  garbageIds: readonly string[];
  dead: readonly DeadLetter[];
  /** The stored records of the tasks whose caller heard nothing, by id. */
  records: ReadonlyMap<string, TaskRecord | undefined>;
  workers: readonly WorkerRecord[];
}

/** The report's figures. */
export interface SoakReport {
  ok: boolean;
  lines: string[];
}

interface Run {
  at: number;
  worker: string;
}

/** Builds the report. */
export function soakReport(facts: SoakFacts): SoakReport {
  const runs = readRuns(facts.runsFile);
  const tasks = facts.sent.filter((task) => task.probeOf === undefined);
  const probes = facts.sent.filter((task) => task.probeOf !== undefined);
  const right = tasks.filter((task) => task.outcome?.kind === 'value' && task.outcome.value === task.expected);
  const wrong = tasks.filter((task) => task.outcome?.kind === 'value' && task.outcome.value !== task.expected);
  const failed = tasks.filter((task) => task.outcome?.kind === 'error');
  const silent = facts.sent.filter((task) => task.outcome === undefined);
  const unresolved = silent.filter((task) => facts.records.get(task.id)?.state === 'SUCCESS');
  const lost = silent.filter((task) => facts.records.get(task.id)?.state !== 'SUCCESS');
  const duplicates = [...runs].filter(([, list]) => list.length > 1);
  const dead = new Map(facts.dead.map((letter) => [letter.id, letter.reason]));
  const garbageDead = facts.garbageIds.filter((id) => dead.has(id));
  const stuck = probes.filter((probe) => isStuck(probe, runs.get(probe.id)?.[0], facts.faults));
  const hung = facts.workers.filter((worker) => worker.stoppedCleanly === false);
  const died = facts.workers.flatMap((worker) => worker.died.map((exit) => ({ worker: worker.name, ...exit })));
  const latencies = right.map((task) => (task.outcome?.at ?? 0) - task.askedAt).sort((a, b) => a - b);
  const refused = facts.sent.reduce((sum, task) => sum + task.refusedSends, 0);
  const faultCounts = countBy(facts.faults.map((fault) => fault.kind));
  const lines = [
    `faults: ${
      Object.entries(faultCounts)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ') || 'none'
    }`,
    `sent: ${tasks.length} tasks, ${probes.length} probes (${refused} sends refused with the broker down, sent again)`,
    `succeeded with the right value: ${right.length}`,
    `wrong value: ${wrong.length}${wrong
      .slice(0, 5)
      .map((task) => ` ${task.id}`)
      .join('')}`,
    `failed: ${failed.length}${summarize(
      failed.map((task) =>
        errorOf(task)
          .replace(/\[[^\]]*\]/g, '')
          .slice(0, 160),
      ),
    )}`,
    `lost (accepted, no outcome, no record): ${lost.length}${lost
      .slice(0, 5)
      .map((task) => ` ${task.id}`)
      .join('')}`,
    `handles never told (record SUCCESS, caller still waiting): ${unresolved.length}`,
    `ran twice or more: ${duplicates.length}${summarize(duplicates.map(([, list]) => causeOf(list, facts.faults)))}`,
    `garbage dead-lettered: ${garbageDead.length} of ${facts.garbageIds.length}` +
      summarize(garbageDead.map((id) => (dead.get(id) ?? '').split(':')[0] ?? '')),
    `workers stuck (a probe not started within ${STUCK_AFTER_MS / 1000} s, worker up, broker up): ${stuck.length}` +
      summarize(stuck.map((probe) => probe.probeOf ?? '')),
    `workers that died by themselves: ${died.length}` +
      died.map((exit) => ` ${exit.worker}(${exit.code ?? exit.signal})`).join(''),
    `workers that did not exit 0 on SIGTERM within the limit: ${hung.length}` + hung.map((w) => ` ${w.name}`).join(''),
    `latency send to result: p50 ${pct(latencies, 0.5)} ms, p99 ${pct(latencies, 0.99)} ms, ` +
      `max ${latencies.at(-1) ?? 0} ms`,
    ...facts.workers.map(
      (worker) =>
        `worker ${worker.name}: started ${worker.starts}x (killed ${worker.killed}), max RSS ` +
        `${mb(worker.maxRss)} MB, with pool children ${mb(worker.maxRssWithChildren)} MB, SIGTERM exit ` +
        `${worker.stopCode?.code ?? worker.stopCode?.signal ?? '?'}`,
    ),
  ];
  const ok =
    failed.length === 0 &&
    lost.length === 0 &&
    wrong.length === 0 &&
    unresolved.length === 0 &&
    stuck.length === 0 &&
    hung.length === 0 &&
    died.length === 0 &&
    garbageDead.length === facts.garbageIds.length;
  return { ok, lines };
}

/** The runs file: task id to its runs, in order. */
function readRuns(file: string): Map<string, Run[]> {
  const runs = new Map<string, Run[]>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return runs;
  }
  for (const line of text.split('\n')) {
    const [at, worker, id] = line.split(' ');
    if (!at || !worker || !id) continue;
    const list = runs.get(id) ?? [];
    list.push({ at: Number(at), worker });
    runs.set(id, list);
  }
  return runs;
}

/** A probe not started in time, with no fault that excuses it (a broker outage, or its worker killed). */
function isStuck(probe: SentTask, firstRun: Run | undefined, faults: readonly InjectedFault[]): boolean {
  const sentAt = probe.askedAt;
  const startedAfter = (firstRun?.at ?? Date.now()) - sentAt;
  if (startedAfter <= STUCK_AFTER_MS) return false;
  const windowEnd = sentAt + STUCK_AFTER_MS;
  return !faults.some((fault) => {
    const end = (fault.backAt ?? fault.at) + FAULT_SHADOW_MS;
    const excuses =
      fault.kind === 'broker-restart' ||
      ((fault.kind === 'worker-kill' || fault.kind === 'child-kill') && fault.target.startsWith(probe.probeOf ?? '-'));
    return excuses && fault.at <= windowEnd && end >= sentAt;
  });
}

/** Faults that can make a task run again, the likeliest cause first (garbage cannot). */
const CAUSES: readonly InjectedFault['kind'][] = ['worker-kill', 'child-kill', 'broker-restart', 'client-kill'];

/** The likeliest fault behind a task's second run (one shortly before it), or 'no fault near it'. */
function causeOf(runs: readonly Run[], faults: readonly InjectedFault[]): string {
  const second = runs[1]?.at ?? 0;
  const near = faults.filter((fault) => fault.at <= second && second - fault.at <= FAULT_SHADOW_MS);
  return CAUSES.find((kind) => near.some((fault) => fault.kind === kind)) ?? 'no fault near it';
}

function errorOf(task: SentTask): string {
  return task.outcome?.kind === 'error' ? task.outcome.error : '';
}

function countBy(items: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}

/** ` (a 3, b 1)` for a list of reasons (the five commonest), or nothing. */
function summarize(items: readonly string[]): string {
  if (items.length === 0) return '';
  const common = Object.entries(countBy(items)).sort((a, b) => b[1] - a[1]);
  const shown = common.slice(0, 5).map(([item, n]) => `${item} ${n}`);
  return ` (${shown.join(', ')}${common.length > 5 ? `, ${common.length - 5} more` : ''})`;
}

function pct(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);
}

function mb(bytes: number): string {
  return (bytes / 1_048_576).toFixed(0);
}
