/**
 * celeriac: distributed tasks for TypeScript. This is the public API; see the docs for a tour.
 */
export { Celeriac } from './celeriac';
export {
  AsyncResult,
  BrokerUnavailableError,
  CeleriacError,
  currentTask,
  MaxRetriesExceededError,
  SerializationError,
  Signature,
  SoftTimeLimitError,
  task,
  TaskFailedError,
  TaskRevokedError,
  TimeLimitExceededError,
  TimeoutError,
  UnknownTaskError,
  WorkerLostError,
  type ApplyOptions,
  type CeleriacErrorCode,
  type CeleriacOptions,
  type CustomSerializer,
  type Duration,
  type GetOptions,
  type RegisteredTasks,
  type RemoteError,
  type RetryOptions,
  type RevokeOptions,
  type SignatureData,
  type TaskContext,
  type TaskDecoratorOptions,
  type TaskHandle,
  type TaskOptions,
  type TaskRecord,
  type TaskState,
} from '@celeriac/core';
export { Worker, type Logger, type WorkerOptions, type WorkerState } from '@celeriac/worker';
