/**
 * @celeriac/redis: the Redis broker and result backend. `new Celeriac({ broker: 'redis://...' })`
 * uses them; import this package directly only to build them by hand. What Celeriac's own packages
 * share beyond this is in `@celeriac/redis/internal`. The Celery protocol on Redis is in `@celeriac/celery`.
 */
export { RedisBackend } from './backend/redis-backend';
export { RedisBroker } from './broker/redis-broker';
export { REDIS_BACKEND_CAPABILITIES, REDIS_BROKER_CAPABILITIES } from './capabilities';
export { RedisBeatStore } from './beat-store/redis-beat-store';
export { RedisConnection, type RedisConnectionOptions } from './connection/connection';
export { type RedisClient } from './connection/redis-client';
