/**
 * @celeriac/redis: the Redis broker and result backend. `new Celeriac({ broker: 'redis://...' })`
 * uses them; import this package directly only to build them by hand.
 */
export { RedisBackend } from './redis-backend';
export { RedisBroker } from './redis-broker';
export { REDIS_BACKEND_CAPABILITIES, REDIS_BROKER_CAPABILITIES } from './capabilities';
export { CELERY_BACKEND_CAPABILITIES, CELERY_BROKER_CAPABILITIES } from './celery/celery-capabilities';
export { RedisBeatStore } from './redis-beat-store';
export { corked, RedisConnection, type RedisConnectionOptions } from './connection';
export { redactUrl } from './redact-url';
export { isSentinelUrl, SENTINEL_SCHEMES, sentinelOptions } from './sentinel-url';
export { CLUSTER_SCHEMES, isClusterUrl, parseClusterUrl, type ClusterNode, type ClusterTarget } from './cluster-url';
export { isCluster, isRedisClient, scanKeys, type RedisClient } from './redis-client';
export { KeySpace, queueKeyList, type BeatKeys, type QueueKeys } from './keys';
export { runScript, type ScriptName } from './scripts';
export { CeleryBackend } from './celery/celery-backend';
export { CeleryBroker, type CeleryBrokerOptions } from './celery/celery-broker';
export { kwargs, type CeleryKwargs } from './celery/celery-message';
export { CeleryKeys } from './celery/celery-keys';
export { CeleryWorkflow } from './celery/celery-workflow';
