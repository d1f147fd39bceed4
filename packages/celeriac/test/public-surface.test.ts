/**
 * The public surface, written out: adding or removing an export, or a member of the app class, is a
 * conscious change to this list (and to docs/architecture.md). What the other packages need beyond
 * it lives in `@celeriac/core/internal`, `@celeriac/worker/internal`, `@celeriac/redis/internal` and
 * `@celeriac/celery/internal`.
 */
import * as core from '@celeriac/core';
import * as internal from '@celeriac/core/internal';
import * as beat from '@celeriac/beat';
import * as celery from '@celeriac/celery';
import * as celeryInternal from '@celeriac/celery/internal';
import * as dashboard from '@celeriac/dashboard';
import * as redis from '@celeriac/redis';
import * as redisInternal from '@celeriac/redis/internal';
import * as worker from '@celeriac/worker';
import * as workerInternal from '@celeriac/worker/internal';
import * as celeriac from 'celeriac';
import type { Celeriac } from 'celeriac';
import type { CeleriacCore } from '@celeriac/core';

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

const CORE_VALUES = [
  'AppEvents',
  'AsyncResult',
  'BrokerUnavailableError',
  'CeleriacCore',
  'CeleriacError',
  'Chain',
  'Chord',
  'ChordError',
  'Codec',
  'DependencyFailedError',
  'EVENT_TYPES',
  'FailedTasks',
  'Group',
  'GroupResult',
  'InvalidMessageError',
  'MAX_RESULT_TTL_MS',
  'MaxRetriesExceededError',
  'MemoryBackend',
  'MemoryBeatStore',
  'MemoryBroker',
  'MEMORY_BACKEND_CAPABILITIES',
  'MEMORY_BROKER_CAPABILITIES',
  'RecordsRefusedError',
  'SerializationError',
  'Signature',
  'SoftTimeLimitError',
  'TaskFailedError',
  'TaskRevokedError',
  'TimeLimitExceededError',
  'TimeoutError',
  'UnknownTaskError',
  'WorkerLostError',
  'backendSupports',
  'brokerSupports',
  'chain',
  'chord',
  'currentTask',
  'group',
  'maybeCurrentTask',
  'missingMethods',
  'task',
];

const CELERIAC_VALUES = [
  ...CORE_VALUES.filter((name) => name !== 'CeleriacCore'),
  'Beat',
  'Celeriac',
  'ManualClock',
  'Scheduler',
  'Worker',
  'at',
  'collectMetrics',
  'createDashboard',
  'crontab',
  'every',
  // Keyword arguments of a call to a Python Celery task (protocol 'celery').
  'kwargs',
  'metricsHandler',
];

/** The members of the app class users get, as DESIGN.md names them. */
type CoreMembers =
  | 'options'
  | 'clientId'
  | 'broker'
  | 'backend'
  | 'control'
  | 'queues'
  | 'task'
  | 'register'
  | 'sendTask'
  | 'result'
  | 'groupResult'
  | 'signature'
  | 'revoke'
  | 'purge'
  | 'registerType'
  | 'registerError'
  | 'registerSerializer'
  | 'events'
  | 'failed'
  | 'closed'
  | 'capabilities'
  | 'close';

describe('the public surface', () => {
  it('@celeriac/core exports exactly the public values', () => {
    expect(Object.keys(core).sort()).toEqual([...CORE_VALUES].sort());
  });

  it('@celeriac/redis exports exactly the public values, and its machinery from ./internal only', () => {
    expect(Object.keys(redis).sort()).toEqual(
      [
        'REDIS_BACKEND_CAPABILITIES',
        'REDIS_BROKER_CAPABILITIES',
        'RedisBackend',
        'RedisBeatStore',
        'RedisBroker',
        'RedisConnection',
      ].sort(),
    );
    for (const name of ['KeySpace', 'runScript', 'queueKeyList', 'scanKeys', 'corked', 'isRedisClient']) {
      expect(redisInternal).toHaveProperty(name);
      expect(redis).not.toHaveProperty(name);
    }
    // The Celery protocol is a package of its own, which depends on this one (not the other way).
    for (const name of ['CeleryBroker', 'CeleryBackend', 'CeleryKeys', 'CeleryWorkflow', 'kwargs']) {
      expect(redis).not.toHaveProperty(name);
      expect(redisInternal).not.toHaveProperty(name);
    }
  });

  it('@celeriac/celery exports exactly the public values, and its machinery from ./internal only', () => {
    expect(Object.keys(celery).sort()).toEqual(
      [
        'CELERY_BACKEND_CAPABILITIES',
        'CELERY_BROKER_CAPABILITIES',
        'CeleryAmqpWire',
        'CeleryBackend',
        'CeleryBroker',
        'celeryAmqpCapabilities',
        'kwargs',
      ].sort(),
    );
    expect(Object.keys(celeryInternal).sort()).toEqual(
      ['CELERYEV', 'CeleryKeys', 'CeleryWorkflow', 'PIDBOX', 'amqpEventSender', 'withCeleryRemoteControl'].sort(),
    );
    // The one name `celeriac` re-exports from it: the same function, so users' imports keep working.
    expect(celeriac.kwargs).toBe(celery.kwargs);
  });

  it('@celeriac/beat exports exactly the public values', () => {
    expect(Object.keys(beat).sort()).toEqual(
      [
        'Beat',
        'MAX_CATCH_UP',
        'ManualClock',
        'SCHEDULER_DEFAULTS',
        'Scheduler',
        'at',
        'crontab',
        'decideCatchUp',
        'every',
        'fingerprint',
        'quietBeatLogger',
        'resolveEntry',
        'scheduleFromSpec',
        'slotTaskId',
        'systemClock',
        'toSchedule',
      ].sort(),
    );
  });

  it('@celeriac/dashboard exports exactly the public values', () => {
    expect(Object.keys(dashboard).sort()).toEqual(['DASHBOARD_DEFAULTS', 'createDashboard', 'resolveDashboardOptions']);
  });

  it('celeriac exports exactly the public values', () => {
    expect(Object.keys(celeriac).sort()).toEqual([...CELERIAC_VALUES].sort());
  });

  it('keeps the machinery in @celeriac/core/internal only', () => {
    for (const name of [
      'runtimeOf',
      'AppRuntime',
      'continueWorkflow',
      'failWorkflow',
      'planLaunch',
      'freeze',
      'startCanvas',
      'runAsSoleTask',
      'WakeTimer',
      'encodeMessage',
      'decodeMessage',
      'TaskRegistry',
      'createTaskHandle',
      'setLongTimeout',
      'toRemoteError',
    ]) {
      expect(internal).toHaveProperty(name);
      expect(core).not.toHaveProperty(name);
      expect(celeriac).not.toHaveProperty(name);
    }
  });

  it('@celeriac/worker exports the worker, its logger and the metrics handler, and keeps its machinery inside', () => {
    expect(Object.keys(worker).sort()).toEqual(['Worker', 'collectMetrics', 'metricsHandler', 'quietLogger']);
    expect(Object.keys(workerInternal).sort()).toEqual(['loadAppModule', 'parseAutoscale', 'resolveAppModule']);
    for (const name of [
      'execute',
      'decideRetry',
      'backoffDelay',
      'resolveWorkerOptions',
      'loadAppModule',
      'resolveAppModule',
    ]) {
      expect(worker).not.toHaveProperty(name);
      expect(celeriac).not.toHaveProperty(name);
    }
  });

  it('gives the app class only the members users call', () => {
    expectType<Equal<keyof CeleriacCore, CoreMembers>>();
    expectType<Equal<keyof Celeriac, CoreMembers | 'worker' | 'schedule' | 'beat'>>();
    const app = new celeriac.Celeriac({ broker: 'memory://' });
    // The runtime hangs off the app under a registered symbol, not a string key.
    expect(Object.keys(app)).toEqual([]);
    expect(internal.runtimeOf(app)).toBeInstanceOf(internal.AppRuntime);
  });
});
