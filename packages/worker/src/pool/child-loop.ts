/**
 * What a pool child does (child-main.ts starts it): loads the app module once, then runs the jobs
 * its parent sends, one at a time in the order sent (the parent may queue some ahead, to hide the
 * round trip, and take back those that have not begun), says when it begins each, and reports
 * progress and outcomes back. It never touches the broker.
 *
 * States: loading ──ready──► idle ◄──► running ──(parent kills or retires it)──► gone
 */
import { UnknownTaskError, type Codec, type TaskState } from '@celeriac/core';
import { readCheckedMessage, runtimeOf, toRemoteError, type AppRuntime } from '@celeriac/core/internal';
import { loadAppModule } from '../load-app';
import { afterNextPoll } from '../next-turn';
import { RunSignal } from '../run-signal';
import { runTask, type TaskOutcome } from '../run-task';
import { monotonicMs } from './child-clock';
import { listenToParent, sendToParent } from './parent-pipe';
import {
  abortedBeforeStart,
  isParentMessage,
  PROTOCOL_VERSION,
  type ChildMessage,
  type ParentMessage,
  type WireOutcome,
} from './protocol';

/** Jobs received, not finished; the first one runs (or is next, while the event loop turns). */
const queue: Array<Extract<ParentMessage, { type: 'run' }>> = [];
/** The job whose task is running, if any. */
let runningJobId: string | undefined;
const signals = new Map<string, RunSignal>();

const send: (packet: ChildMessage | ChildMessage[]) => void = sendToParent;

/** How long (ms) a child runs queued jobs back to back before it reads what its parent sent. */
const READ_PARENT_EVERY_MS = 2;

/** True while drain() works through the queue (only one may). */
let draining = false;

async function drain(app: AppRuntime): Promise<void> {
  if (draining) return;
  draining = true;
  try {
    await drainQueue(app);
  } finally {
    draining = false;
  }
}

async function drainQueue(app: AppRuntime): Promise<void> {
  let readAt = monotonicMs();
  // A job's 'done' waits for the next job's 'began' when that one follows at once: one write for both.
  let finished: ChildMessage | undefined;
  while (queue.length > 0) {
    const next = queue[0] as Extract<ParentMessage, { type: 'run' }>;
    runningJobId = next.jobId;
    // Said before the task begins (the parent counts its hard limit from here, and hands back only
    // what the child says it gave back): from now on a withdraw leaves it here.
    const began: ChildMessage = { v: PROTOCOL_VERSION, type: 'began', jobId: next.jobId };
    send(finished ? [finished, began] : began);
    finished = await handleRun(app, next);
    runningJobId = undefined;
    queue.shift();
    // Tasks that never wait would keep the pipe unread until the queue is empty, so a 'withdraw' or
    // 'abort' for the jobs behind them would come too late: let the event loop poll now and then.
    // (A single turn is not enough: the jobs run from the pipe's read callback, and from there the
    // next check phase comes before the next poll, so the job behind would begin unread.)
    if (queue.length > 0 && monotonicMs() - readAt >= READ_PARENT_EVERY_MS) {
      send(finished);
      finished = undefined;
      await afterNextPoll();
      readAt = monotonicMs();
    }
  }
  if (finished) send(finished);
}

/** Runs one job; returns its 'done' message, for the caller to send. */
async function handleRun(app: AppRuntime, message: Extract<ParentMessage, { type: 'run' }>): Promise<ChildMessage> {
  const began = monotonicMs();
  const stop = signals.get(message.jobId) ?? new RunSignal();
  let outcome: WireOutcome;
  try {
    // The worker checked this very text (signature, fields) before it sent it: read it, no more.
    const task = readCheckedMessage(app.codec, message.body);
    const definition = app.registry.get(task.task);
    // The worker has it, or it would not have sent it: this child loaded another version of the app module.
    if (!definition) throw new UnknownTaskError(task.task);
    const result: TaskOutcome = await runTask(
      {
        message: task,
        definition,
        deliveries: message.deliveries,
        maxRetries: message.maxRetries,
        stop,
        soleInProcess: message.last === true,
        softTimeLimit: message.softTimeLimit,
        traceparent: message.traceparent,
        // Metadata that does not encode throws in the task's call, as in the inline pool, rather
        // than rejecting a promise the task may not await.
        report: (state: TaskState, meta: unknown) => {
          send({
            v: PROTOCOL_VERSION,
            type: 'report',
            jobId: message.jobId,
            state,
            meta: app.codec.stringify(meta, () => `the ${state} metadata of ${task.task}`),
          });
          return Promise.resolve();
        },
      },
      app.codec,
      (hook, error) =>
        send({ v: PROTOCOL_VERSION, type: 'hook-error', jobId: message.jobId, hook, error: toRemoteError(error) }),
    );
    outcome = result.kind === 'success' ? encodeResult(app.codec, result.value, task.task) : (result as WireOutcome);
  } catch (error) {
    outcome = { kind: 'failure', error: toRemoteError(error) };
  } finally {
    signals.delete(message.jobId);
  }
  // After its last job a child only waits for the parent to close the pipe: its memory is no news.
  return {
    v: PROTOCOL_VERSION,
    type: 'done',
    jobId: message.jobId,
    outcome,
    rss: message.last ? 0 : residentMemory(),
    ms: monotonicMs() - began,
  };
}

/**
 * A result for the pipe: a plain value as its JSON text, which the worker hands to the backend as
 * it is (it never parses it unless a workflow needs the value); any other through the app's codec.
 */
function encodeResult(codec: Codec, value: unknown, task: string): WireOutcome {
  const label = () => `the result of ${task}`;
  if (codec.inspect(value, label) === 'plain') {
    const json = JSON.stringify(value);
    // undefined has no JSON text of its own.
    if (json !== undefined) return { kind: 'success', json };
  }
  return { kind: 'success', value: codec.stringify(value, label) };
}

/** How old a memory reading may be when a task ends and another waits behind it (ms). */
const MEMORY_READING_MS = 50;
let memoryBytes = 0;
let memoryReadAt = -Infinity;

/**
 * This process's resident memory (bytes). Reading it parses /proc, which costs as much as the rest
 * of a no-op task in a prefork child, so while jobs queue up behind each other a reading is reused
 * for up to {@link MEMORY_READING_MS}. A child about to go idle always reads afresh: it may not be
 * asked again for a long time, and must not keep memory it should be retired for.
 */
function residentMemory(): number {
  const now = monotonicMs();
  if (queue.length <= 1 || now - memoryReadAt >= MEMORY_READING_MS) {
    memoryBytes = process.memoryUsage.rss();
    memoryReadAt = now;
  }
  return memoryBytes;
}

async function main(): Promise<void> {
  const specifier = process.env.CELERIAC_APP_MODULE;
  let app: AppRuntime;
  try {
    if (!specifier) throw new Error('CELERIAC_APP_MODULE is not set; pool children are started by a worker.');
    app = runtimeOf(await loadAppModule(specifier));
  } catch (error) {
    // Exit at once (the message has left): the app may have opened handles that would keep us alive.
    send({ v: PROTOCOL_VERSION, type: 'start-failed', error: toRemoteError(error) });
    return process.exit(1);
  }
  // The parent owns this process: when it closes the pipe (or dies), we go, even in the middle of a
  // task (a retired child has none). A closed pipe goes unnoticed while a task spins without
  // yielding, so the worker's reaper also kills an orphan's process group (orphan-guard.ts).
  listenToParent(
    (packets) => {
      for (const packet of packets) {
        for (const message of Array.isArray(packet) ? (packet as unknown[]) : [packet]) handle(app, message);
      }
      // Only once all of a read is handled: a withdraw or an abort that came with its job (written
      // while this child was busy) is seen before the job begins, not after.
      if (queue.length > 0) void drain(app);
    },
    () => process.exit(0),
  );
  // A terminal's Ctrl-C does not reach this process: it leads a process group of its own
  // (child-handle.ts), and the worker decides when its children stop.
  send({ v: PROTOCOL_VERSION, type: 'ready', pid: process.pid });
}

/** Removes a job that has not begun; false when it runs or is gone. */
function dropQueued(jobId: string): boolean {
  const index = queue.findIndex((queued) => queued.jobId === jobId);
  if (index < 0 || jobId === runningJobId) return false;
  queue.splice(index, 1);
  signals.delete(jobId);
  return true;
}

/** Handles one message of the parent (they come alone, or several in one list). */
function handle(app: AppRuntime, message: unknown): void {
  if (!isParentMessage(message)) return;
  if (message.type === 'run') {
    signals.set(message.jobId, new RunSignal());
    queue.push(message);
  } else if (message.type === 'withdraw') {
    // Only a job that has not begun can go back; the running one stays.
    if (dropQueued(message.jobId)) send({ v: PROTOCOL_VERSION, type: 'withdrawn', jobId: message.jobId });
  } else if (dropQueued(message.jobId)) {
    // An aborted job still waiting behind the running one is simply dropped.
    send({
      v: PROTOCOL_VERSION,
      type: 'done',
      jobId: message.jobId,
      outcome: abortedBeforeStart(message.reason),
      rss: residentMemory(),
      ms: 0,
    });
  } else {
    signals.get(message.jobId)?.abort(new Error(message.reason));
  }
}

void main();
