/** Builds a TaskMessage from a call: the call's options over the task's options over the app's. */
import { randomUUID } from 'node:crypto';
import { freeze } from '../canvas/freeze';
import type { WorkflowFields } from '../canvas/nodes';
import { callbackNodes, dependencyIds } from '../canvas/to-node';
import { toMilliseconds } from '../duration';
import type { MessageLimits } from '../flow/message-limits';
import { limitsOf } from '../flow/resolve-limits';
import { MESSAGE_VERSION, type TaskMessage } from '../message';
import { TRACEPARENT_FORMAT, traceparentProblem } from '../message-schema';
import type { ApplyOptions, ResolvedAppOptions, TaskOptions } from '../options';
import { isQueueName, QUEUE_NAME_RULE } from '../queue-name';
import { invalid, resultTtlMilliseconds } from './resolve-options';

/** Everything a message is built from. */
export interface MessageInput {
  name: string;
  args: readonly unknown[];
  call: ApplyOptions;
  task: Readonly<TaskOptions> | undefined;
  app: ResolvedAppOptions;
  replyTo: string | undefined;
  parentId?: string;
  rootId?: string;
  /** Workflow fields set by a canvas (callbacks from `call` are added to them). */
  workflow?: WorkflowFields;
  /** A workflow step: not debounced (see `MessageExtras.step`). */
  step?: boolean;
}

/** Builds and validates the message of one call; throws `CELERIAC_INVALID_OPTION` or `..._DURATION`. */
export function buildMessage(input: MessageInput): TaskMessage {
  const { call, task, app } = input;
  const now = Date.now();
  const id = call.taskId ?? randomUUID();
  if (typeof id !== 'string' || id.length === 0 || id.length > 200)
    throw invalid('taskId', id, 'a non-empty string of at most 200 characters');
  const priority = call.priority ?? task?.priority ?? 0;
  if (!Number.isInteger(priority) || priority < 0 || priority > 255)
    throw invalid('priority', priority, 'an integer from 0 to 255');
  const queue = call.queue ?? task?.queue ?? app.defaultQueue;
  if (!isQueueName(queue)) throw invalid('queue', queue, QUEUE_NAME_RULE);
  const headers: unknown = call.headers ?? {};
  if (
    typeof headers !== 'object' ||
    headers === null ||
    Array.isArray(headers) ||
    !Object.values(headers).every((value) => typeof value === 'string')
  ) {
    throw invalid('headers', call.headers, 'an object whose values are strings');
  }
  if (traceparentProblem(headers as Record<string, unknown>, 'headers') !== undefined)
    throw invalid('headers.traceparent', (headers as Record<string, unknown>).traceparent, TRACEPARENT_FORMAT);
  const message: TaskMessage = {
    version: MESSAGE_VERSION,
    id,
    task: input.name,
    args: [...input.args],
    queue,
    priority,
    retries: 0,
    headers: { ...call.headers },
    publishedAt: now,
  };
  if (input.replyTo !== undefined) message.replyTo = input.replyTo;
  const eta = etaOf(call, now);
  if (eta !== undefined) message.eta = eta;
  if (call.expires !== undefined) {
    message.expires =
      call.expires instanceof Date ? call.expires.getTime() : now + toMilliseconds(call.expires, 'expires');
    if (!Number.isFinite(message.expires)) throw invalid('expires', call.expires, 'a duration or a valid Date');
  }
  if (call.retries !== undefined) {
    if (!Number.isInteger(call.retries) || call.retries < 0) throw invalid('retries', call.retries, 'an integer >= 0');
    message.maxRetries = call.retries;
  }
  if (call.timeLimit !== undefined) message.timeLimit = toMilliseconds(call.timeLimit, 'timeLimit');
  if (call.softTimeLimit !== undefined) message.softTimeLimit = toMilliseconds(call.softTimeLimit, 'softTimeLimit');
  if (call.ignoreResult !== undefined) message.ignoreResult = call.ignoreResult;
  if (call.resultTtl !== undefined) message.resultTtl = resultTtlMilliseconds(call.resultTtl);
  // The task's own resultTtl is applied by the worker: a bad one is refused here, where it is sent.
  else if (task?.resultTtl !== undefined) resultTtlMilliseconds(task.resultTtl);
  if (input.parentId !== undefined) message.parentId = input.parentId;
  if (input.rootId !== undefined) message.rootId = input.rootId;
  const workflow = workflowOf(input);
  if (workflow) message.workflow = workflow;
  const limits = limitsOf(input.name, input.args, task);
  const kept = limits && debounced(message, limits, input.step === true, now);
  if (kept) message.limits = kept;
  if (call.dependsOn !== undefined) {
    const ids = dependencyIds(call.dependsOn);
    if (ids.some((dependency) => typeof dependency !== 'string' || dependency.length === 0))
      throw invalid('dependsOn', call.dependsOn, 'task ids or result handles');
    if (ids.length > 0) message.dependsOn = ids;
  }
  return message;
}

/**
 * The limits of a debounced call, which starts a window after its send (or at its eta, if later).
 * A call that is part of a workflow (a step, or one with callbacks) is not debounced: collapsing it
 * would drop another send's workflow, whose steps wait for their own ids.
 */
function debounced(message: TaskMessage, limits: MessageLimits, step: boolean, now: number): MessageLimits | undefined {
  const { debounce, ...others } = limits;
  if (debounce === undefined) return limits;
  if (step || message.workflow !== undefined) return Object.keys(others).length > 1 ? others : undefined;
  message.eta = Math.max(message.eta ?? 0, now + debounce.window);
  return limits;
}

/** The canvas fields plus the call's own callbacks, frozen so a re-published callback keeps its id. */
function workflowOf(input: MessageInput): WorkflowFields | undefined {
  const { link, linkError } = input.call;
  if (link === undefined && linkError === undefined) return input.workflow;
  const workflow: WorkflowFields = { ...input.workflow };
  if (link !== undefined) workflow.link = [...(workflow.link ?? []), ...callbackNodes(link).map(freeze)];
  if (linkError !== undefined)
    workflow.linkError = [...(workflow.linkError ?? []), ...callbackNodes(linkError).map(freeze)];
  return workflow;
}

function etaOf(call: ApplyOptions, now: number): number | undefined {
  if (call.countdown !== undefined && call.eta !== undefined) {
    throw invalid('countdown', call.countdown, 'either countdown or eta, not both');
  }
  if (call.countdown !== undefined) {
    const ms = toMilliseconds(call.countdown, 'countdown');
    return ms > 0 ? now + ms : undefined;
  }
  if (call.eta === undefined) return undefined;
  const time =
    call.eta instanceof Date ? call.eta.getTime() : typeof call.eta === 'string' ? Date.parse(call.eta) : call.eta;
  if (!Number.isFinite(time)) throw invalid('eta', call.eta, 'a Date, epoch milliseconds or an ISO date string');
  return time;
}
