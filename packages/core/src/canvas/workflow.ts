/**
 * Workflow progress: once a step's record is stored, start what follows it (the next chain step, a
 * chord's body, link callbacks), or settle the steps that will never run when it failed or was
 * revoked. A worker does this before the step's ack: if it dies in between, the step runs again,
 * and the re-published steps keep their ids, so nothing runs twice while waiting.
 */
import type { LaunchOptions } from '../internal/launch-options';
import type { ResultBackend, StoreEntry, TaskRecord } from '../backend';
import { isReadyState } from '../states';
import { ChordError, toRemoteError, type CeleriacErrorCode, type RemoteError } from '../errors';
import type { TaskMessage } from '../message';
import {
  firstTaskOf,
  memberId,
  tasksOf,
  type CanvasNode,
  type Continuation,
  type GroupMembership,
  type StepFailureMeta,
} from './nodes';

/** How many member records one read fetches when a chord completes. */
const READ_CHUNK = 1_000;

/**
 * Errors building a step's message (too large, not serializable, a bad option): sending it again
 * cannot help, so the step is failed at once rather than left to re-run until dead-lettered.
 */
const UNSENDABLE: ReadonlySet<CeleriacErrorCode> = new Set([
  'CELERIAC_MESSAGE_TOO_LARGE',
  'CELERIAC_SERIALIZATION',
  'CELERIAC_INVALID_OPTION',
  'CELERIAC_INVALID_DURATION',
]);

/** What moving a workflow on needs: the app's backend and launcher, and a way to store records. */
export interface WorkflowContext {
  app: {
    readonly backend: ResultBackend;
    launchCanvas(node: CanvasNode, parentArgs: readonly unknown[], options?: LaunchOptions): Promise<void>;
  };
  /** Stores records (through the worker's settler). */
  store(entries: StoreEntry[]): Promise<void>;
  /** The result TTL of a message. */
  ttlOf(message: TaskMessage): number;
}

/** A step that will not run, and why. */
export interface StepFailure {
  state: 'FAILURE' | 'REVOKED';
  error?: RemoteError;
  reason?: string;
}

/** Starts what follows a step that succeeded with `value`. */
export async function continueWorkflow(context: WorkflowContext, message: TaskMessage, value: unknown): Promise<void> {
  const workflow = message.workflow;
  if (!workflow) return;
  const lineage = lineageOf(message);
  const launches: Array<Promise<void>> = [];
  const then = workflow.then ?? [];
  if (then.length > 0) {
    const next = continuationOf([], workflow.member);
    launches.push(
      launchOrFail(context, message, continuationOf(then, workflow.member), () =>
        context.app.launchCanvas(chainOf(then), [value], { ...lineage, next }),
      ),
    );
  } else if (workflow.member) {
    launches.push(memberSucceeded(context, message, workflow.member));
  }
  for (const callback of workflow.link ?? [])
    launches.push(
      launchOrFail(context, message, { steps: [callback] }, () => context.app.launchCanvas(callback, [value], lineage)),
    );
  await Promise.all(launches);
}

/** Settles what can no longer run after a step failed (or was revoked) for good. */
export async function failWorkflow(
  context: WorkflowContext,
  message: TaskMessage,
  failure: StepFailure,
): Promise<void> {
  const workflow = message.workflow;
  if (!workflow) return;
  // The steps after this one fail with this step's own error: their records name it as the step that failed.
  const launches: Array<Promise<void>> = [settleSteps(context, message, workflow.then ?? [], failure, true)];
  if (workflow.member) launches.push(failChord(context, message, workflow.member, failure));
  if (failure.state === 'FAILURE')
    launches.push(
      launchErrbacks(
        context,
        message,
        workflow.linkError,
        message.id,
        failure.error ?? { name: 'Error', message: 'unknown failure' },
      ),
    );
  await Promise.all(launches);
}

/** Counts a chord member; the member that completes the group starts the body. */
async function memberSucceeded(context: WorkflowContext, message: TaskMessage, member: GroupMembership): Promise<void> {
  const { backend } = context.app;
  const progress = await backend.groupMemberDone(member.group, member.index, member.size, context.ttlOf(message));
  const full = progress.done >= member.size;
  if (!progress.completed && !(progress.repeated && full)) return;
  // The body started already (a re-run of the completing member), or a failed member failed the
  // chord (and its errbacks ran): never start it now.
  if (await bodyStarted(context, member)) return;
  const records = await readMembers(context, member);
  // A member counted before and running again (its worker died before the ack) shows a state in
  // between: its re-run completes the group when it ends.
  if (records.some((record) => record !== undefined && !isReadyState(record.state))) return;
  const missing = records.findIndex((record) => record?.state !== 'SUCCESS');
  if (missing >= 0) {
    const error = new ChordError(
      `Chord ${member.group} cannot run its callback: the result of member ${missing} ` +
        `(${memberId(member.group, missing)}) is ${records[missing]?.state ?? 'gone (expired or forgotten)'}.`,
    );
    return settleContinuation(context, message, member.body, { state: 'FAILURE', error: toRemoteError(error) });
  }
  const results = records.map((record) => (record as TaskRecord).result);
  const next = continuationOf([], member.body.member);
  const launch = () =>
    context.app.launchCanvas(chainOf(member.body.steps), [results], {
      ...lineageOf(message),
      parentId: member.group,
      next,
    });
  await launchOrFail(
    context,
    message,
    member.body,
    launch,
    (error) => new ChordError(`Chord ${member.group} cannot start its callback: ${error.message}`),
  );
}

/**
 * Starts a continuation. When its messages cannot be built (see UNSENDABLE), its steps are failed
 * with that error (wrapped by `wrap`), so the caller hears why at once; other errors (the broker)
 * propagate, and the step is not acked and runs again.
 */
async function launchOrFail(
  context: WorkflowContext,
  message: TaskMessage,
  continuation: Continuation,
  launch: () => Promise<void>,
  wrap?: (error: Error) => Error,
): Promise<void> {
  try {
    await launch();
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (!(error instanceof Error) || !UNSENDABLE.has(code as CeleriacErrorCode)) throw error;
    await settleContinuation(context, message, continuation, {
      state: 'FAILURE',
      error: toRemoteError(wrap ? wrap(error) : error),
    });
  }
}

/**
 * A failed member fails its chord: the body's steps get a ChordError naming the member. Only the
 * first failed member does it, so the callback's errbacks run once however many members fail.
 */
async function failChord(
  context: WorkflowContext,
  message: TaskMessage,
  member: GroupMembership,
  failure: StepFailure,
): Promise<void> {
  const { backend } = context.app;
  const failed = await backend.groupMemberDone(
    `${member.group}:failed`,
    member.index,
    member.size,
    context.ttlOf(message),
  );
  if (!failed.repeated && failed.done > 1) return; // another member failed it first
  // The body started (every member had succeeded before this re-run failed) or was settled already.
  if (await bodyStarted(context, member)) return;
  const cause = failure.error ? `${failure.error.name}: ${failure.error.message}` : (failure.reason ?? failure.state);
  const error = new ChordError(
    `Chord ${member.group} failed: member ${member.index}, ${message.task}[${message.id}], ended ${failure.state} ` +
      `(${cause}); the callback does not run.`,
  );
  await settleContinuation(context, message, member.body, { state: 'FAILURE', error: toRemoteError(error) });
}

/**
 * Fails every step of a continuation that will not run, calls its first step's errbacks, and fails the enclosing chord.
 */
async function settleContinuation(
  context: WorkflowContext,
  message: TaskMessage,
  continuation: Continuation,
  failure: StepFailure,
): Promise<void> {
  const launches: Array<Promise<void>> = [settleSteps(context, message, continuation.steps, failure)];
  const first = firstTaskOf(chainOf(continuation.steps));
  launches.push(launchErrbacks(context, message, first.linkError, first.options.taskId as string, failure.error));
  if (continuation.member) launches.push(failChord(context, message, continuation.member, failure));
  await Promise.all(launches);
}

/**
 * Stores records for the steps that will not run. If any of them has a record, the workflow went on
 * already (a step can fail on a re-run after its first run had started what follows, before a crash
 * kept it from being acked): then nothing is written over it.
 */
async function settleSteps(
  context: WorkflowContext,
  message: TaskMessage,
  steps: readonly CanvasNode[],
  failure: StepFailure,
  ownError = false,
): Promise<void> {
  const tasks = tasksOf(steps);
  if (tasks.length === 0) return;
  const existing = await context.app.backend.getMany(tasks.map((step) => step.options.taskId as string));
  if (existing.some((record) => record !== undefined)) return;
  const ttl = context.ttlOf(message);
  const entries = tasks.map((step): StoreEntry => {
    const meta: StepFailureMeta = { reason: failure.reason ?? `step ${message.id} failed`, cause: message.id };
    if (ownError) meta.causeTask = message.task;
    const record: TaskRecord = {
      id: step.options.taskId as string,
      state: failure.state,
      task: step.task,
      date: Date.now(),
      meta,
    };
    if (failure.error) record.error = failure.error;
    const entry: StoreEntry = { record, ttl };
    if (message.replyTo !== undefined) entry.replyTo = message.replyTo;
    return entry;
  });
  await context.store(entries);
}

async function readMembers(context: WorkflowContext, member: GroupMembership): Promise<Array<TaskRecord | undefined>> {
  const records: Array<TaskRecord | undefined> = [];
  for (let start = 0; start < member.size; start += READ_CHUNK) {
    const ids = Array.from({ length: Math.min(READ_CHUNK, member.size - start) }, (_, offset) =>
      memberId(member.group, start + offset),
    );
    records.push(...(await context.app.backend.getMany(ids)));
  }
  return records;
}

/** Calls errbacks with `(taskId, error)`; one whose message cannot be built is failed on its own. */
async function launchErrbacks(
  context: WorkflowContext,
  message: TaskMessage,
  errbacks: readonly CanvasNode[] | undefined,
  taskId: string,
  error: RemoteError | undefined,
): Promise<void> {
  await Promise.all(
    (errbacks ?? []).map((errback) =>
      launchOrFail(context, message, { steps: [errback] }, () =>
        context.app.launchCanvas(errback, [taskId, error], lineageOf(message)),
      ),
    ),
  );
}

/** True once a chord's body has a record: it was started, or settled as failed. */
async function bodyStarted(context: WorkflowContext, member: GroupMembership): Promise<boolean> {
  return (
    (await context.app.backend.get(firstTaskOf(chainOf(member.body.steps)).options.taskId as string)) !== undefined
  );
}

/** The rest of a chain, then the group its end is a member of, if any. */
function continuationOf(steps: CanvasNode[], member: GroupMembership | undefined): Continuation {
  return member ? { steps, member } : { steps };
}

function chainOf(steps: CanvasNode[]): CanvasNode {
  return steps.length === 1 ? (steps[0] as CanvasNode) : { kind: 'chain', steps };
}

/** Steps started by a worker keep the workflow's reply channel and lineage, and are re-sends. */
function lineageOf(message: TaskMessage): LaunchOptions {
  return { parentId: message.id, rootId: message.rootId ?? message.id, replyTo: message.replyTo, idempotent: true };
}
