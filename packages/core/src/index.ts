/**
 * @celeriac/core: the app, tasks, calls, results, serialization and the Broker/Backend contracts.
 * It knows no Redis; transports plug in through the Broker, ResultBackend and BeatStore interfaces.
 * This is the public surface; what the worker, beat and redis packages share beyond it is in
 * `@celeriac/core/internal`.
 */
export { CeleriacCore } from './app';
export { chain, Chain, chord, Chord, group, Group } from './canvas/canvas';
export type { CanvasApplyOptions, CanvasSender, Composable, HandleOf, ValueOf } from './canvas/composable';
export { GroupResult } from './canvas/group-result';
export type {
  CanvasNode,
  ChainNode,
  Continuation,
  Flow,
  GroupMembership,
  GroupNode,
  StepOptions,
  TaskNode,
  WorkflowFields,
} from './canvas/nodes';
export { AsyncResult, type GetOptions, type ParentResult, type ResultSource, type RevokeOptions } from './async-result';
export type {
  BackendSettings,
  ChangeSubscription,
  GroupProgress,
  ResultBackend,
  StoreEntry,
  TaskRecord,
  WaitOptions,
  ManyWaitOptions,
} from './backend';
export type {
  BeatStore,
  BeatTaskOptions,
  CatchUpPolicy,
  ClaimOutcome,
  LeaseState,
  ScheduleSpec,
  SlotMark,
  StoredBeatEntry,
} from './beat-store';
export type {
  Broker,
  BrokerSettings,
  DeadLetter,
  Delivery,
  FailedTask,
  Failure,
  PublishOutcome,
  PurgedMessage,
  QueueStats,
  RecoveryReport,
  ReplicationSettings,
  Revocation,
  TerminateSignal,
  WorkerInfo,
} from './broker';
export type { ErrorClass } from './error-types';
export type { Control, ControlOptions, HeldTask, InspectWhat } from './control/control-api';
export type { BackendCapabilities, BrokerCapabilities, SharedStatePart } from './capabilities';
export type { MessageTransport, SharedStateStore } from './transport-split';
export {
  backendSupports,
  brokerSupports,
  missingMethods,
  type BackendFlag,
  type BackendWith,
  type BrokerFlag,
  type BrokerWith,
} from './supports';
export type { Queues, QueueInfo } from './control/queues-api';
export type {
  BroadcastOptions,
  ControlCommand,
  ControlHandler,
  ControlReply,
  ControlRequest,
  ControlTransport,
} from './control/control-types';
export { Codec, type CustomSerializer, type JsonValue, type SerializedValue, type ValueLabel } from './codec';
export { currentTask, maybeCurrentTask, type RetryOptions, type TaskContext } from './context';
export { task, type MethodKeys, type RegisteredTasks, type TaskDecoratorOptions } from './decorator';
export type { Duration, DurationUnit } from './duration';
export type {
  ConcurrencyOptions,
  DebounceOptions,
  FlowOptions,
  LimitKey,
  RateLimitOptions,
  RateLimitSpec,
  ThrottleOptions,
  UniqueOptions,
  UniqueWhile,
} from './flow/flow-options';
export type {
  ConcurrencyBudget,
  DebounceWindow,
  MessageLimits,
  RateBudget,
  RateSetting,
  UniqueLock,
} from './flow/message-limits';
export {
  BrokerUnavailableError,
  CeleriacError,
  ChordError,
  DependencyFailedError,
  InvalidMessageError,
  RecordsRefusedError,
  MaxRetriesExceededError,
  SerializationError,
  SoftTimeLimitError,
  TaskFailedError,
  TaskRevokedError,
  TimeLimitExceededError,
  TimeoutError,
  UnknownTaskError,
  WorkerLostError,
  type CeleriacErrorCode,
  type RemoteError,
} from './errors';
export type { EventLog, EventReadOptions } from './events/event-log';
export {
  EVENT_TYPES,
  type CeleriacEvent,
  type CeleriacEventType,
  type EventError,
  type StoredEvent,
  type TaskEvent,
  type TaskEventFields,
  type WorkerEvent,
  type WorkerEventFields,
} from './events/event-types';
export { AppEvents, type EventFilter, type EventStreamOptions, type RecentEventsOptions } from './events/app-events';
export { FailedTasks, type FailedSelection } from './failed/failed-tasks';
export type { Logger, LogLevel } from './logger';
export { MemoryBackend } from './memory/memory-backend';
export { MemoryBeatStore, type MemoryBeatStoreOptions } from './memory/memory-beat-store';
export { MemoryBroker } from './memory/memory-broker';
export { MEMORY_BACKEND_CAPABILITIES, MEMORY_BROKER_CAPABILITIES } from './memory/memory-capabilities';
export { MAX_RESULT_TTL_MS } from './result-ttl-limit';
export type { TransportClient } from './transport-client';
export type { TransactionClient } from './transaction-client';
export type { Envelope } from './message';
export type {
  ApplyOptions,
  Callbacks,
  CeleriacOptions,
  CeleryProtocolOptions,
  Dependency,
  Durability,
  ErrorMatcher,
  EventOptions,
  ResolvedAppOptions,
  TaskOptions,
  WireProtocol,
} from './options';
export { Signature, type SignatureData, type SignatureSender } from './signature';
export type { BuiltInState, TaskState } from './states';
export type { ArgsTail, TaskFunction, TaskHandle, TaskSender } from './task';
