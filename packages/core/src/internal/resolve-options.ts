/** Applies defaults to the app's options and checks them, once, at construction. */
import { toMilliseconds, type Duration } from '../duration';
import { CeleriacError } from '../errors';
import { APP_DEFAULTS, type CeleriacOptions, type ResolvedAppOptions } from '../options';
import { MAX_RESULT_TTL_MS } from '../result-ttl-limit';

/** Fills in defaults and validates; throws `CELERIAC_INVALID_OPTION` naming the bad option. */
export function resolveAppOptions(options: CeleriacOptions): ResolvedAppOptions {
  const broker = options.broker ?? APP_DEFAULTS.broker;
  const maxDeliveries = options.maxDeliveries ?? APP_DEFAULTS.maxDeliveries;
  if (!Number.isInteger(maxDeliveries) || maxDeliveries < 1) {
    throw invalid('maxDeliveries', maxDeliveries, 'an integer of at least 1');
  }
  const maxMessageSize = options.maxMessageSize ?? APP_DEFAULTS.maxMessageSize;
  if (!Number.isInteger(maxMessageSize) || maxMessageSize < 1) {
    throw invalid('maxMessageSize', maxMessageSize, 'a positive number of bytes');
  }
  const prefix = options.prefix ?? APP_DEFAULTS.prefix;
  if (!/^[\w.:-]+$/.test(prefix)) throw invalid('prefix', prefix, 'letters, digits, and . : _ - only');
  const visibilityTimeout = toMilliseconds(
    options.visibilityTimeout ?? APP_DEFAULTS.visibilityTimeout,
    'visibilityTimeout',
  );
  if (visibilityTimeout < 1000) throw invalid('visibilityTimeout', options.visibilityTimeout, 'at least 1s');
  const signatureMaxAge = toMilliseconds(options.signatureMaxAge ?? APP_DEFAULTS.signatureMaxAge, 'signatureMaxAge');
  if (signatureMaxAge < 1000) throw invalid('signatureMaxAge', options.signatureMaxAge, 'at least 1s');
  return {
    broker,
    backend: options.backend ?? (typeof broker === 'string' ? broker : APP_DEFAULTS.broker),
    prefix,
    visibilityTimeout,
    ...resolveProtocol(options),
    resultTtl: resultTtlMilliseconds(options.resultTtl ?? APP_DEFAULTS.resultTtl),
    defaultQueue: options.defaultQueue ?? APP_DEFAULTS.defaultQueue,
    maxDeliveries,
    secret: options.secret,
    signatureMaxAge,
    maxMessageSize,
    revokeTtl: toMilliseconds(options.revokeTtl ?? APP_DEFAULTS.revokeTtl, 'revokeTtl'),
    events: resolveEventOptions(options.events),
    failedTtl: toMilliseconds(options.failedTtl ?? APP_DEFAULTS.failedTtl, 'failedTtl'),
    failedLimit: positiveInteger('failedLimit', options.failedLimit ?? APP_DEFAULTS.failedLimit),
    replication: resolveReplication(options),
  };
}

function resolveProtocol(options: CeleriacOptions): Pick<ResolvedAppOptions, 'protocol' | 'celery'> {
  const protocol = options.protocol ?? APP_DEFAULTS.protocol;
  if (protocol !== 'celeriac' && protocol !== 'celery') throw invalid('protocol', protocol, "'celeriac' or 'celery'");
  // Celery messages carry no Celeriac signature, so a worker requiring one would dead-letter them all.
  if (protocol === 'celery' && options.secret !== undefined) {
    throw invalid('secret', '(set)', "no secret with protocol 'celery' (Celery messages are not signed this way)");
  }
  const celery = options.celery ?? {};
  const keyPrefix = celery.keyPrefix ?? APP_DEFAULTS.celery.keyPrefix;
  if (typeof keyPrefix !== 'string') throw invalid('celery.keyPrefix', keyPrefix, 'a string');
  const resultKeyPrefix = celery.resultKeyPrefix ?? APP_DEFAULTS.celery.resultKeyPrefix;
  if (typeof resultKeyPrefix !== 'string') throw invalid('celery.resultKeyPrefix', resultKeyPrefix, 'a string');
  const visibilityTimeout = toMilliseconds(
    celery.visibilityTimeout ?? APP_DEFAULTS.celery.visibilityTimeout,
    'celery.visibilityTimeout',
  );
  if (visibilityTimeout < 1000) throw invalid('celery.visibilityTimeout', celery.visibilityTimeout, 'at least 1s');
  return { protocol, celery: { keyPrefix, resultKeyPrefix, visibilityTimeout } };
}

function resolveReplication(options: CeleriacOptions): ResolvedAppOptions['replication'] {
  const durability = options.durability ?? APP_DEFAULTS.durability;
  if (durability !== 'async' && durability !== 'replicated') {
    throw invalid('durability', durability, "'async' or 'replicated'");
  }
  const timeout = toMilliseconds(options.replicationTimeout ?? APP_DEFAULTS.replicationTimeout, 'replicationTimeout');
  if (timeout < 1) throw invalid('replicationTimeout', options.replicationTimeout, 'at least 1ms');
  return durability === 'replicated' ? { replicas: 1, timeout } : undefined;
}

function resolveEventOptions(events: CeleriacOptions['events']): ResolvedAppOptions['events'] {
  // `events: { payloads: true }` turns them on too: asking for a detail of events means wanting them.
  const given =
    typeof events === 'object' && events !== null ? events : { enabled: events ?? APP_DEFAULTS.events.enabled };
  return {
    enabled: given.enabled ?? true,
    payloads: given.payloads ?? APP_DEFAULTS.events.payloads,
    payloadLimit: positiveInteger('events.payloadLimit', given.payloadLimit ?? APP_DEFAULTS.events.payloadLimit),
    maxLength: positiveInteger('events.maxLength', given.maxLength ?? APP_DEFAULTS.events.maxLength),
  };
}

function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw invalid(option, value, 'an integer of at least 1');
  return value;
}

/** A `resultTtl` (app, task or call) in ms; throws `CELERIAC_INVALID_DURATION` or `..._OPTION` past the maximum. */
export function resultTtlMilliseconds(value: Duration, what = 'resultTtl'): number {
  const ms = toMilliseconds(value, what);
  if (ms > MAX_RESULT_TTL_MS)
    throw invalid(what, value, `a duration of at most ${MAX_RESULT_TTL_MS} ms (Redis refuses longer expiries)`);
  return ms;
}

/** The error for an option with a bad value. */
export function invalid(option: string, value: unknown, expected: string): CeleriacError {
  return new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `Invalid ${option}: ${JSON.stringify(value)}; expected ${expected}.`,
  );
}
