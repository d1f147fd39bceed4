/** Helpers shared by the tests of every package (private: never published). */
export { captureLogs, type LogEntry } from './capture-logs';
export {
  adminClient,
  CELERY_REDIS_URL,
  deleteKeysUnder,
  freshPrefix,
  REDIS_URL,
  RedisFixture,
  redisTopology,
  type RedisTopology,
  untilAfter,
} from './redis-fixture';
export {
  CLUSTER_BASE_PORT,
  CLUSTER_PORTS,
  CLUSTER_URL,
  clusterPorts,
  clusterUrl,
  startClusterNode,
  startTestCluster,
  stopTestCluster,
  untilClusterOk,
  type TestClusterState,
} from './redis-cluster';
export {
  killSentinelMaster,
  restartSentinelServer,
  SENTINEL_URL,
  sentinelFailover,
  sentinelMasterPort,
  startSentinelServers,
  stopSentinelServers,
  switchSentinelMaster,
  untilSentinelsHealthy,
} from './sentinel-servers';
export {
  clusterMasters,
  moveSlot,
  restoreSlot,
  slotMoveReplies,
  slotOwner,
  type MoveSlotOptions,
  type SlotMaster,
} from './cluster-slots';
export { redisUrlAs, topologyServers } from './topology-servers';
export { alive, childrenOf, gone, processGroupOf } from './procs';
export { RestartableRedis } from './restartable-redis';
export { TestAclUser } from './test-acl-user';
export { announce, listenTo, type NoticeListener } from './notices';
export { masterHolding, replicaAddresses, withReplicasStopped } from './replicas';
export { testBroker, testBrokerPlace, type TestBroker, type TestBrokerPlace } from './test-broker';
export { injectReady, rawMessage } from './inject';
export { CHROMIUM, launchBrowser, type TestBrowser } from './browser';
export { readLiveMessages, type LiveMessage } from './live-messages';
export { dropSchema, freshPostgresPrefix, POSTGRES_URL, withPostgres } from './postgres-fixture';
export { PostgresServer, type PostgresServerOptions, type PostgresStopMode } from './postgres-server';
export { untilTrue } from './until';
export { brokerPair } from './broker-pair';
export {
  createTestVhost,
  RABBITMQ_BASE_URL,
  rabbitmqctl,
  useTestVhost,
  VHOST_TIMEOUT,
  type TestVhost,
} from './rabbitmq-fixture';
export {
  quorumLeader,
  RABBIT_NODE_TIMEOUT,
  startRabbitCluster,
  startRabbitNode,
  type RabbitCluster,
  type RabbitNode,
  type RabbitNodeOptions,
} from './rabbitmq-node';
