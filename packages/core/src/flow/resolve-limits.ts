/**
 * Checks flow-control options when a task is registered, and turns them into the limits of one call
 * when its message is built (the key functions run here, on the sender).
 */
import { toMilliseconds, type Duration } from '../duration';
import { CeleriacError } from '../errors';
import type {
  ConcurrencyOptions,
  DebounceOptions,
  FlowOptions,
  LimitKey,
  RateLimitOptions,
  RateLimitSpec,
  ThrottleOptions,
  UniqueOptions,
  UniqueWhile,
} from './flow-options';
import type { MessageLimits, RateSetting } from './message-limits';
import { argumentsKey } from './unique-key';

/** Longest key a key function may return. */
const MAX_KEY_LENGTH = 200;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SPEC = /^\s*(\d+)\s*\/\s*(\d*(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/;

/**
 * A rate as a budget without its key; throws `CELERIAC_INVALID_OPTION` (or `..._DURATION` for `per`)
 * naming `option` of `owner` (e.g. `rateLimit` of `task api.call`).
 */
export function parseRate(value: RateLimitSpec | RateLimitOptions, option: string, owner: string): RateSetting {
  const what = `${option} of ${owner}`;
  if (typeof value === 'string') {
    const match = SPEC.exec(value);
    const limit = Number(match?.[1]);
    const per = match ? Math.round(Number(match[2] === '' ? 1 : match[2]) * (UNIT_MS[match[3] as string] ?? 0)) : 0;
    if (!match || limit < 1 || per < 1) throw badRate(what, value);
    return { limit, per, burst: 1 };
  }
  if (typeof value !== 'object' || value === null) throw badRate(what, value);
  const { limit, per = '1s', burst = 1, key } = value;
  const field = (name: string) => `${option}.${name} of ${owner}`;
  if (!Number.isInteger(limit) || limit < 1) throw flowInvalid(field('limit'), limit, 'an integer of at least 1');
  const perMs = toMilliseconds(per, field('per'));
  if (perMs < 1) throw flowInvalid(field('per'), per, 'a duration of at least 1ms');
  if (!Number.isInteger(burst) || burst < 1) throw flowInvalid(field('burst'), burst, 'an integer of at least 1');
  if (key !== undefined && typeof key !== 'function')
    throw flowInvalid(field('key'), key, 'a function of the arguments');
  return { limit, per: perMs, burst };
}

/** Checks a task's flow options at `app.task(...)` time; throws `CELERIAC_INVALID_OPTION`. */
export function checkFlowOptions(name: string, options: FlowOptions): void {
  if (options.rateLimit !== undefined) parseRate(options.rateLimit, 'rateLimit', `task ${name}`);
  if (options.concurrency !== undefined) concurrencyOf(options.concurrency, name);
  if (options.unique !== undefined) uniqueOf(options.unique, name);
  if (options.throttle !== undefined) windowOf(options.throttle, 'throttle', name);
  if (options.debounce !== undefined) windowOf(options.debounce, 'debounce', name);
  if (options.unique !== undefined && options.throttle !== undefined)
    throw flowInvalid(`throttle of task ${name}`, options.throttle, 'no throttle on a unique task (choose one)');
  if (options.debounce !== undefined && (options.unique !== undefined || options.throttle !== undefined))
    throw flowInvalid(`debounce of task ${name}`, options.debounce, 'no debounce on a unique or throttled task');
}

/** The limits of one call, or undefined when the task has none (the common case costs one check). */
export function limitsOf(
  name: string,
  args: readonly unknown[],
  options: FlowOptions | undefined,
): MessageLimits | undefined {
  if (
    options?.rateLimit === undefined &&
    options?.concurrency === undefined &&
    options?.unique === undefined &&
    options?.throttle === undefined &&
    options?.debounce === undefined
  )
    return undefined;
  const limits: MessageLimits = { task: name };
  if (options.rateLimit !== undefined) {
    const rate = parseRate(options.rateLimit, 'rateLimit', `task ${name}`);
    const key = typeof options.rateLimit === 'object' ? options.rateLimit.key : undefined;
    limits.rate = { ...rate, key: scope(name, key, args, 'rateLimit.key') };
  }
  if (options.concurrency !== undefined) {
    const { limit, key } = concurrencyOf(options.concurrency, name);
    limits.concurrency = { limit, key: scope(name, key, args, 'concurrency.key') };
  }
  if (options.unique !== undefined) {
    const unique = uniqueOf(options.unique, name);
    const key =
      unique.key === undefined ? `${name}:${argumentsKey(name, args)}` : scope(name, unique.key, args, 'unique.key');
    limits.unique = { key, while: unique.while, ttl: unique.ttl };
  }
  if (options.throttle !== undefined) {
    const throttle = windowOf(options.throttle, 'throttle', name);
    const key =
      throttle.key === undefined
        ? `${name}:${argumentsKey(name, args)}`
        : scope(name, throttle.key, args, 'throttle.key');
    limits.unique = { key, while: 'window', ttl: throttle.window };
  }
  if (options.debounce !== undefined) {
    // Without a key every send of the task collapses: "the last arguments" only matter when they differ.
    const debounce = windowOf(options.debounce, 'debounce', name);
    limits.debounce = { key: scope(name, debounce.key, args, 'debounce.key'), window: debounce.window };
  }
  return limits;
}

/** A throttle's or debounce's window in ms and its key function; throws `CELERIAC_INVALID_OPTION`. */
function windowOf(
  value: Duration | ThrottleOptions | DebounceOptions,
  option: 'throttle' | 'debounce',
  name: string,
): { key?: LimitKey; window: number } {
  if (typeof value !== 'object' && typeof value !== 'string' && typeof value !== 'number')
    throw flowInvalid(`${option} of task ${name}`, value, "a duration like '2s', or { window, key }");
  const options = typeof value === 'object' && value !== null ? value : { window: value };
  if (options.key !== undefined && typeof options.key !== 'function')
    throw flowInvalid(`${option}.key of task ${name}`, options.key, 'a function of the arguments');
  if (options.window === undefined)
    throw flowInvalid(`${option} of task ${name}`, value, "a duration like '2s', or { window, key }");
  const window = toMilliseconds(options.window, `${option} of task ${name}`);
  if (window < 1) throw flowInvalid(`${option} of task ${name}`, options.window, 'a duration of at least 1ms');
  return options.key === undefined ? { window } : { key: options.key, window };
}

const UNIQUE_WHILE: readonly UniqueWhile[] = ['queued', 'running', 'queued-or-running'];

function uniqueOf(value: true | UniqueOptions, name: string): { key?: LimitKey; while: UniqueWhile; ttl: number } {
  const options = value === true ? {} : value;
  if (typeof options !== 'object' || options === null)
    throw flowInvalid(`unique of task ${name}`, value, 'true, or { key, while, ttl }');
  if (options.key !== undefined && typeof options.key !== 'function')
    throw flowInvalid(`unique.key of task ${name}`, options.key, 'a function of the arguments');
  const mode = options.while ?? 'queued-or-running';
  if (!UNIQUE_WHILE.includes(mode))
    throw flowInvalid(`unique.while of task ${name}`, mode, "'queued', 'running' or 'queued-or-running'");
  const ttl = toMilliseconds(options.ttl ?? '1h', `unique.ttl of task ${name}`);
  if (ttl < 1) throw flowInvalid(`unique.ttl of task ${name}`, options.ttl, 'a duration of at least 1ms');
  return options.key === undefined ? { while: mode, ttl } : { key: options.key, while: mode, ttl };
}

function concurrencyOf(value: number | ConcurrencyOptions, name: string): ConcurrencyOptions {
  const options = typeof value === 'number' ? { limit: value } : value;
  if (typeof options !== 'object' || options === null || !Number.isInteger(options.limit) || options.limit < 1)
    throw flowInvalid(`concurrency of task ${name}`, value, 'an integer of at least 1, or { limit, key }');
  if (options.key !== undefined && typeof options.key !== 'function')
    throw flowInvalid(`concurrency.key of task ${name}`, options.key, 'a function of the arguments');
  return options;
}

/** The budget's scope: the task name, then the key the call's arguments give, if the limit has a key function. */
function scope(name: string, key: LimitKey | undefined, args: readonly unknown[], what: string): string {
  if (key === undefined) return name;
  const value = (key as (...params: unknown[]) => unknown)(...args);
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_KEY_LENGTH)
    throw flowInvalid(`${what} of task ${name}`, value, `a non-empty string of at most ${MAX_KEY_LENGTH} characters`);
  return `${name}:${value}`;
}

function badRate(what: string, value: unknown): CeleriacError {
  return flowInvalid(what, value, "a rate like '100/s', '10/m', '1000/h' or { limit, per, burst, key }");
}

function flowInvalid(option: string, value: unknown, expected: string): CeleriacError {
  const shown = typeof value === 'function' ? 'a function' : JSON.stringify(value);
  return new CeleriacError('CELERIAC_INVALID_OPTION', `Invalid ${option}: ${shown}; expected ${expected}.`);
}
