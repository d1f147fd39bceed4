/**
 * @celeriac/core: the app, tasks, calls, results, serialization and the Broker/Backend contracts.
 * It knows no Redis; transports plug in through the Broker and ResultBackend interfaces.
 */
export { CeleriacCore, type Closeable, type LaunchOptions, type MessageExtras } from './app';
export * from './canvas';
export { AsyncResult, type GetOptions, type ParentResult, type ResultSource, type RevokeOptions } from './async-result';
export type { BackendSettings, ChangeSubscription, GroupProgress, ResultBackend, StoreEntry, TaskRecord, WaitOptions } from './backend';
export { checkBeatEntrySignature, signBeatEntry } from './beat-entry-signature';
export { BEAT_OPTION_KEYS, type BeatStore, type BeatTaskOptions, type CatchUpPolicy, type ClaimOutcome, type LeaseState, type ScheduleSpec, type SlotMark, type StoredBeatEntry } from './beat-store';
export type {
  Broker,
  BrokerSettings,
  DeadLetter,
  Delivery,
  PublishOutcome,
  PurgedMessage,
  QueueStats,
  RecoveryReport,
  Revocation,
  TerminateSignal,
  WorkerInfo,
} from './broker';
export { Codec, type CustomSerializer, type JsonValue, type SerializedValue, type ValueLabel } from './codec';
export { currentTask, maybeCurrentTask, runAsSoleTask, runWithTaskContext, RetryRequest, type RetryOptions, type TaskContext } from './context';
export { findDecoratedMethods, task, type RegisteredTasks, type TaskDecoratorOptions } from './decorator';
export { optionalMilliseconds, toMilliseconds, type Duration, type DurationUnit } from './duration';
export {
  BrokerUnavailableError,
  CeleriacError,
  ChordError,
  closedWhileWaiting,
  DependencyFailedError,
  InvalidMessageError,
  RecordsRefusedError,
  MaxRetriesExceededError,
  reviveRemoteError,
  SerializationError,
  SoftTimeLimitError,
  TaskFailedError,
  TaskRevokedError,
  TimeLimitExceededError,
  TimeoutError,
  toRemoteError,
  UnknownTaskError,
  WorkerLostError,
  type CeleriacErrorCode,
  type RemoteError,
} from './errors';
export { clearLongTimeout, MAX_TIMER_DELAY, setLongTimeout, type LongTimeout } from './internal/long-timeout';
export { TERMINATE_GRACE_MS, terminationOf, type Termination } from './internal/revocation';
export { logsAt, warningsToStderr, type Logger, type LogLevel } from './logger';
export { MemoryBackend } from './memory/memory-backend';
export { MemoryBeatStore, type MemoryBeatStoreOptions } from './memory/memory-beat-store';
export { MemoryBroker } from './memory/memory-broker';
export { WakeTimer } from './memory/wake-timer';
export { MAX_RESULT_TTL_MS } from './internal/resolve-options';
export {
  decodeMessage,
  encodeMessage,
  envelopeOf,
  MESSAGE_VERSION,
  type Envelope,
  type MessageCodecOptions,
  type TaskMessage,
} from './message';
export type { DeliveryCheck } from './internal/replay-window';
export {
  APP_DEFAULTS,
  TASK_DEFAULTS,
  type ApplyOptions,
  type Callbacks,
  type CeleriacOptions,
  type Dependency,
  type ErrorMatcher,
  type ResolvedAppOptions,
  type TaskOptions,
} from './options';
export { TaskRegistry, type TaskDefinition } from './registry';
export { Signature, type SignatureData, type SignatureSender } from './signature';
export { isReadyState, READY_STATES, type BuiltInState, type TaskState } from './states';
export { createTaskHandle, type ArgsTail, type TaskFunction, type TaskHandle, type TaskSender } from './task';
