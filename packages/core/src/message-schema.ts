/**
 * The shape check of a decoded task message: every field a worker reads, the workflow tree
 * included, is checked before anything runs, so a message written straight into Redis by anyone
 * but Celeriac's own calls is refused with the field it got wrong instead of failing deep inside a
 * run, a settle or a workflow step.
 */
import { MAX_RESULT_TTL_MS } from './result-ttl-limit';
import { isTraceparent, TRACEPARENT_HEADER } from './tracing/traceparent';

/** Deepest workflow nesting accepted (chains of chords nest; real workflows stay far below). */
const MAX_DEPTH = 200;

/** What is wrong with one field: `<path> must be <expected>, not <value>`. */
type Problem = string | undefined;

/**
 * The first problem of a decoded message (its arguments and workflow already deserialized), as
 * `<field> must be <expected>, not <value>`; undefined when every field is usable. Unknown fields
 * are ignored.
 */
export function messageProblem(message: Record<string, unknown>): string | undefined {
  return (
    check(message, 'id', 'a non-empty string', isId, true) ??
    check(message, 'task', 'a non-empty string', isId, true) ??
    check(message, 'args', 'a list', Array.isArray, true) ??
    check(message, 'queue', 'a non-empty string', isId, true) ??
    check(message, 'priority', 'an integer from 0 to 255', isPriority, true) ??
    check(message, 'retries', 'an integer >= 0', isCount, true) ??
    check(message, 'publishedAt', 'a time (epoch ms)', isTime, true) ??
    check(message, 'headers', 'an object of strings', isHeaders, true) ??
    traceparentProblem(message.headers as Record<string, unknown>, 'headers') ??
    check(message, 'eta', 'a time (epoch ms)', isTime) ??
    check(message, 'expires', 'a time (epoch ms)', isTime) ??
    check(message, 'maxRetries', 'an integer >= 0', isCount) ??
    check(message, 'timeLimit', 'a number of ms >= 0', isTime) ??
    check(message, 'softTimeLimit', 'a number of ms >= 0', isTime) ??
    check(message, 'resultTtl', `a number of ms from 0 to ${MAX_RESULT_TTL_MS}`, isResultTtl) ??
    check(message, 'ignoreResult', 'true or false', isBoolean) ??
    check(message, 'replyTo', 'a string', isString) ??
    check(message, 'parentId', 'a string', isString) ??
    check(message, 'rootId', 'a string', isString) ??
    check(message, 'dependsOn', 'a list of task ids', isIdList) ??
    // Named by its wire key `flow` (see message.ts), the name a hand-written message uses.
    (message.workflow === undefined ? undefined : workflowProblem(message.workflow, 'flow')) ??
    (message.limits === undefined ? undefined : limitsProblem(message.limits, 'limits'))
  );
}

/** Flow-control limits: the task name, and each budget's numbers and scope key. */
export function limitsProblem(limits: unknown, path: string): Problem {
  if (!isObject(limits)) return mustBe(path, 'an object', limits);
  const budget = (field: 'rate' | 'concurrency' | 'unique' | 'debounce', numbers: readonly string[]): Problem => {
    const value = limits[field];
    if (value === undefined) return undefined;
    if (!isObject(value)) return mustBe(`${path}.${field}`, 'an object', value);
    for (const name of numbers) {
      const problem = check(value, name, 'an integer >= 1', isPositive, true, `${path}.${field}.${name}`);
      if (problem !== undefined) return problem;
    }
    return check(value, 'key', 'a non-empty string', isId, true, `${path}.${field}.key`);
  };
  return (
    check(limits, 'task', 'a non-empty string', isId, true, `${path}.task`) ??
    budget('rate', ['limit', 'per', 'burst']) ??
    budget('concurrency', ['limit']) ??
    budget('unique', ['ttl']) ??
    budget('debounce', ['window']) ??
    (isObject(limits.unique)
      ? check(
          limits.unique,
          'while',
          "'queued', 'running', 'queued-or-running' or 'window'",
          isUniqueWhile,
          true,
          `${path}.unique.while`,
        )
      : undefined)
  );
}

/** The problem of a field in its encoded form (`{ json, meta? }`), before it is deserialized. */
export function serializedProblem(value: unknown, path: string): string | undefined {
  return isObject(value) && 'json' in value && (value.meta === undefined || isObject(value.meta))
    ? undefined
    : mustBe(path, 'an encoded value ({ "json": ..., "meta"?: {...} })', value);
}

/** What a `traceparent` header must look like, for error messages. */
export const TRACEPARENT_FORMAT = "a W3C traceparent ('00-' 32 hex digits '-' 16 hex digits '-' 2 hex digits)";

/**
 * The trace context header, when present: the worker's run span joins the trace it names, so a
 * malformed one is refused like any other bad field.
 */
export function traceparentProblem(headers: Record<string, unknown>, path: string): Problem {
  return check(headers, TRACEPARENT_HEADER, TRACEPARENT_FORMAT, isTraceparent, false, `${path}.${TRACEPARENT_HEADER}`);
}

/** A field's problem: missing (when required) or present and not `valid`. */
function check(
  object: Record<string, unknown>,
  field: string,
  expected: string,
  valid: (value: unknown) => boolean,
  required = false,
  path = field,
): Problem {
  const value = object[field];
  if (value === undefined) return required ? `${path} must be ${expected}, and is missing` : undefined;
  return valid(value) ? undefined : mustBe(path, expected, value);
}

function mustBe(path: string, expected: string, value: unknown): string {
  return `${path} must be ${expected}, not ${show(value)}`;
}

/** The workflow fields: the rest of a chain, a chord membership, callbacks. */
function workflowProblem(workflow: unknown, path: string): Problem {
  if (!isObject(workflow)) return mustBe(path, 'an object', workflow);
  return (
    nodesProblem(workflow.then, `${path}.then`, 0) ??
    (workflow.member === undefined ? undefined : memberProblem(workflow.member, `${path}.member`, 0)) ??
    nodesProblem(workflow.link, `${path}.link`, 0) ??
    nodesProblem(workflow.linkError, `${path}.linkError`, 0)
  );
}

/** An optional list of workflow nodes; `nonEmpty` where an empty list could not run. */
function nodesProblem(nodes: unknown, path: string, depth: number, nonEmpty = false): Problem {
  if (nodes === undefined && !nonEmpty) return undefined;
  if (!Array.isArray(nodes) || (nonEmpty && nodes.length === 0))
    return mustBe(path, nonEmpty ? 'a non-empty list of workflow nodes' : 'a list of workflow nodes', nodes);
  for (let index = 0; index < nodes.length; index++) {
    const problem = nodeProblem(nodes[index], `${path}[${index}]`, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function nodeProblem(node: unknown, path: string, depth: number): Problem {
  if (depth > MAX_DEPTH) return `${path} must be nested at most ${MAX_DEPTH} deep`;
  if (!isObject(node)) return mustBe(path, "a workflow node (an object of kind 'task', 'group' or 'chain')", node);
  switch (node.kind) {
    case 'task':
      return (
        check(node, 'task', 'a non-empty string', isId, true, `${path}.task`) ??
        check(node, 'args', 'a list', Array.isArray, true, `${path}.args`) ??
        check(node, 'immutable', 'true or false', isBoolean, true, `${path}.immutable`) ??
        stepOptionsProblem(node.options, `${path}.options`) ??
        nodesProblem(node.link, `${path}.link`, depth) ??
        nodesProblem(node.linkError, `${path}.linkError`, depth)
      );
    case 'group':
      return (
        check(node, 'id', 'a non-empty string', isId, true, `${path}.id`) ??
        nodesProblem(node.members, `${path}.members`, depth, true)
      );
    case 'chain':
      return nodesProblem(node.steps, `${path}.steps`, depth, true);
    default:
      return mustBe(`${path}.kind`, "'task', 'group' or 'chain'", node.kind);
  }
}

/** A chord membership: the group, this member's place in it, and the body that runs after it. */
function memberProblem(member: unknown, path: string, depth: number): Problem {
  if (depth > MAX_DEPTH) return `${path} must be nested at most ${MAX_DEPTH} deep`;
  if (!isObject(member)) return mustBe(path, 'a chord membership (an object)', member);
  const problem =
    check(member, 'group', 'a non-empty string', isId, true, `${path}.group`) ??
    check(
      member,
      'size',
      'an integer >= 1',
      (value) => isCount(value) && (value as number) >= 1,
      true,
      `${path}.size`,
    ) ??
    check(
      member,
      'index',
      `an integer below the size (${String(member.size)})`,
      (value) => isCount(value) && (value as number) < (member.size as number),
      true,
      `${path}.index`,
    );
  if (problem !== undefined) return problem;
  const body = member.body;
  if (!isObject(body)) return mustBe(`${path}.body`, 'a continuation (an object)', body);
  return (
    nodesProblem(body.steps, `${path}.body.steps`, depth, true) ??
    (body.member === undefined ? undefined : memberProblem(body.member, `${path}.body.member`, depth + 1))
  );
}

/**
 * The call options a workflow step carries: its id (set when the workflow was frozen) and the types
 * of the options its message is built from. Their values are checked when that message is built,
 * where a bad one fails the step with a typed error.
 */
function stepOptionsProblem(options: unknown, path: string): Problem {
  if (!isObject(options)) return mustBe(path, 'an object', options);
  const at = (field: string) => `${path}.${field}`;
  const problem =
    check(options, 'taskId', 'a non-empty string', isId, true, at('taskId')) ??
    check(options, 'queue', 'a string', isString, false, at('queue')) ??
    check(options, 'priority', 'a number', isNumber, false, at('priority')) ??
    check(options, 'retries', 'a number', isNumber, false, at('retries')) ??
    check(options, 'ignoreResult', 'true or false', isBoolean, false, at('ignoreResult')) ??
    check(options, 'headers', 'an object of strings', isHeaders, false, at('headers')) ??
    check(options, 'dependsOn', 'a list of task ids', isIdList, false, at('dependsOn')) ??
    check(options, 'eta', 'a Date, a number or a string', isDateLike, false, at('eta')) ??
    check(options, 'expires', 'a duration or a Date', isDateLike, false, at('expires'));
  if (problem !== undefined) return problem;
  for (const field of ['countdown', 'timeLimit', 'softTimeLimit', 'resultTtl'] as const) {
    const durationProblem = check(options, field, 'a duration (a number or a string)', isDuration, false, at(field));
    if (durationProblem !== undefined) return durationProblem;
  }
  // Callbacks of a step are nodes of their own (TaskNode.link); as options they would be read as code.
  for (const field of ['link', 'linkError'] as const) {
    if (options[field] !== undefined)
      return `${at(field)} must be absent (a step's callbacks are nodes), not ${show(options[field])}`;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isId(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
}

function isIdList(value: unknown): boolean {
  return Array.isArray(value) && value.every(isId);
}

function isBoolean(value: unknown): boolean {
  return typeof value === 'boolean';
}

function isNumber(value: unknown): boolean {
  return typeof value === 'number';
}

/** A finite number >= 0: an epoch time or a duration in ms. */
function isTime(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isCount(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0;
}

function isUniqueWhile(value: unknown): boolean {
  return value === 'queued' || value === 'running' || value === 'queued-or-running' || value === 'window';
}

function isPositive(value: unknown): boolean {
  return isCount(value) && (value as number) >= 1;
}

function isPriority(value: unknown): boolean {
  return isCount(value) && (value as number) <= 255;
}

function isResultTtl(value: unknown): boolean {
  return isTime(value) && (value as number) <= MAX_RESULT_TTL_MS;
}

function isHeaders(value: unknown): boolean {
  return isObject(value) && Object.values(value).every(isString);
}

function isDuration(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'string';
}

function isDateLike(value: unknown): boolean {
  return isDuration(value) || value instanceof Date;
}

/** A value for an error message: its JSON, cut short. */
function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
