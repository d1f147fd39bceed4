/**
 * `@celeriac/redis/internal`: what the celeriac, celery, test-support and bench packages share of the
 * Redis transport beyond its public API (key layout, scripts, URL parsing, socket corking, the
 * connection's blocking calls and errors). Not for applications: it changes without notice.
 */
export { BlockingCallDropped } from '../connection/blocking-client';
export { corked } from '../connection/connection';
export { redactUrl } from '@celeriac/core/internal';
export { isSentinelUrl, SENTINEL_SCHEMES, sentinelOptions } from '../connection/sentinel-url';
export {
  CLUSTER_SCHEMES,
  isClusterUrl,
  parseClusterUrl,
  type ClusterNode,
  type ClusterTarget,
} from '../connection/cluster-url';
export { isCluster, isRedisClient, publish, scanKeys, singleNode } from '../connection/redis-client';
export { KeySpace, queueKeyList, type BeatKeys, type QueueKeys } from '../keys';
export { noteRefusals } from '../backend/store-records';
export { runScript, type ScriptName } from '../scripting/scripts';
export {
  scriptLibrary,
  type ScriptKeyTable,
  type ScriptLibrary,
  type ScriptLibraryOptions,
  type ScriptSource,
} from '../scripting/script-library';
export type { VariadicKeys } from '../scripting/script-keys';
export type { RedisEventLog } from '../events/redis-event-log';
export { unavailable } from '../connection/unavailable';
