/**
 * `@celeriac/core/internal`: what the worker, beat, redis and celeriac packages share beyond the
 * public API (the app's runtime, message encoding, workflow steps, timers). Not for applications: it
 * changes without notice. The public API is `@celeriac/core` (and `celeriac`).
 */
export { AppRuntime, type Transports } from './runtime';
export { parseTransportUrl, transportHosts, transportUrlText } from './transport-url';
export { redactUrl } from './redact-url';
export { attachRuntime, maybeRuntimeOf, runtimeOf } from './runtime-of';
export type { Closeable, LaunchOptions, MessageExtras } from './launch-options';
export { handleOf, startCanvas } from '../canvas/composable';
export { freeze } from '../canvas/freeze';
export { planLaunch, type PlannedTask } from '../canvas/launch';
export { firstTaskOf, memberId, tasksOf } from '../canvas/nodes';
export { continueWorkflow, failWorkflow, type StepFailure, type WorkflowContext } from '../canvas/workflow';
export { checkBeatEntrySignature, signBeatEntry } from '../beat-entry-signature';
export { BEAT_OPTION_KEYS } from '../beat-store';
export { runAsSoleTask, runWithTaskContext, RetryRequest } from '../context';
export { findDecoratedMethods } from '../decorator';
export { controlOf } from '../control/control-api';
export { readQueue } from '../control/queues-api';
export { optionalMilliseconds, toMilliseconds } from '../duration';
export { closedWhileWaiting, reviveRemoteError, toRemoteError } from '../errors';
export { clearLongTimeout, MAX_TIMER_DELAY, setLongTimeout, type LongTimeout } from './long-timeout';
export { TERMINATE_GRACE_MS, terminationOf, type Termination } from './revocation';
export { logsAt, warningsToStderr } from '../logger';
export { WakeTimer } from '../memory/wake-timer';
export {
  decodeMessage,
  encodeMessage,
  envelopeOf,
  MESSAGE_VERSION,
  readCheckedMessage,
  type MessageCodecOptions,
  type TaskMessage,
} from '../message';
export type { DeliveryCheck } from './replay-window';
export { APP_DEFAULTS, TASK_DEFAULTS } from '../options';
export { TaskRegistry, type TaskDefinition } from '../registry';
export { isReadyState, READY_STATES } from '../states';
export { createTaskHandle } from '../task';
export { describeError, reviveError } from './remote-error';
export { eventPayload as eventPayloadOf } from '../events/payload';
export {
  compareEventIdParts,
  compareEventIds,
  eventIdBefore,
  eventIdParts,
  type EventIdParts,
} from '../events/event-ids';
export {
  celeriacTracer,
  contextOf,
  failSpan,
  recordError,
  senderContext,
  taskAttributes,
  traceparentOf,
  tracingOn,
  type RevokeReason,
} from '../tracing/spans';
export { formatTraceparent, parseTraceparent, TRACEPARENT_HEADER } from '../tracing/traceparent';
export { hostAllowed, originProblem, parseAllowedHosts, type AllowedHosts } from './allowed-hosts';
export { isQueueName, QUEUE_NAME_RULE } from '../queue-name';
export { SHARED_STATE_PARTS } from '../capabilities';
export { isCutPayload, plainJson, readPayload, showValue, type CutPayload } from '../display-value';
export { keepProcessAlive, whileKeptAlive } from './keep-alive';
export { createSplitBroker, splitCapabilities } from '../split-broker';
