/**
 * The task message: what travels from the caller through the broker to a worker. It carries data
 * only (invariant: no code runs from a message) and, when the app has a `secret`, an HMAC.
 */
import { hmac, sameMac } from './internal/hmac';
import type { WorkflowFields } from './canvas/nodes';
import type { Codec, SerializedValue } from './codec';
import type { MessageLimits } from './flow/message-limits';
import { CeleriacError, InvalidMessageError } from './errors';
import { checkReplayWindow, type DeliveryCheck } from './internal/replay-window';
import { messageProblem, serializedProblem } from './message-schema';

/** The current message format version. */
export const MESSAGE_VERSION = 1;

/** A task invocation, decoded. */
export interface TaskMessage {
  version: typeof MESSAGE_VERSION;
  /** The task id, also the key of its result. */
  id: string;
  /** The registered task name. */
  task: string;
  args: unknown[];
  queue: string;
  /** 0–255; higher runs first. */
  priority: number;
  /** Epoch ms before which the task must not run. */
  eta?: number;
  /** Epoch ms after which the task is not run but marked REVOKED. */
  expires?: number;
  /** How many times this task has been retried so far. */
  retries: number;
  /** Overrides the task's `retries` limit for this call. */
  maxRetries?: number;
  /** Overrides of the task's time limits, in ms. */
  timeLimit?: number;
  softTimeLimit?: number;
  ignoreResult?: boolean;
  /** How long the result is kept, in ms. */
  resultTtl?: number;
  /** User headers, passed through to the task context. */
  headers: Record<string, string>;
  /** The channel of the client that sent the task, for a direct completion notice. */
  replyTo?: string;
  parentId?: string;
  rootId?: string;
  /** Epoch ms when the message was first published. */
  publishedAt: number;
  /**
   * What runs after this task in its workflow (chain steps, chord membership, callbacks). Encoded
   * under the wire key `flow` (see {@link encodeMessage}).
   */
  workflow?: WorkflowFields;
  /** Task ids that must succeed before this task runs. */
  dependsOn?: string[];
  /** Flow-control limits (rate, concurrency) the broker enforces when it leases the task. */
  limits?: MessageLimits;
}

/** What a broker stores and moves: routing data plus the opaque encoded message. */
export interface Envelope {
  id: string;
  queue: string;
  priority: number;
  /** Epoch ms; absent or in the past means ready now. */
  eta?: number;
  /** True when the caller chose the id: a second publish of an id still waiting or running is a no-op. */
  idempotent: boolean;
  /** The encoded {@link TaskMessage}. */
  body: string;
  /** The message's flow-control limits, for the broker to enforce without decoding the body. */
  limits?: MessageLimits;
  /**
   * A debounced send encoded under the id of the task waiting out its key's window: replace that
   * task's message and start time (`eta`) if it still waits (see `PublishOutcome`).
   */
  replaces?: boolean;
}

/**
 * The message as JSON. `flow` is the wire name of the message's `workflow`: messages queued by
 * earlier releases carry it under that key, and workers of earlier releases read only that key, so
 * it stays (it is not flow control).
 */
interface WireMessage extends Omit<TaskMessage, 'args' | 'workflow'> {
  args: SerializedValue;
  flow?: SerializedValue;
}

/** Options for {@link encodeMessage} and {@link decodeMessage}. */
export interface MessageCodecOptions {
  /** Signs (encode) and requires a valid signature (decode) when set. */
  secret?: string;
  /** Maximum encoded size in bytes. */
  maxBytes?: number;
  /**
   * Decode only: the delivery a worker is about to run. With `secret`, the message must have been
   * signed for this id and be within its replay window (see `signatureMaxAge`).
   */
  delivery?: DeliveryCheck;
}

const SIGNED_PREFIX = 'hmac-sha256:';

/** Encodes a message to text; throws SerializationError or CELERIAC_MESSAGE_TOO_LARGE. */
export function encodeMessage(codec: Codec, message: TaskMessage, options: MessageCodecOptions = {}): string {
  let rich = false;
  message.args.forEach((arg, index) => {
    if (codec.inspect(arg, () => `argument ${index + 1} of ${message.task}`) === 'rich') rich = true;
  });
  // One copy of the message with its encoded fields (this runs for every task sent). The literal
  // names no other key: a `workflow: undefined` in it made every plain send's copy slower to build
  // and to stringify (bench/README.md, bulk enqueue).
  const { workflow } = message;
  const wire = {
    ...message,
    args: rich ? codec.serialize(message.args) : { json: message.args },
  } as unknown as WireMessage & { workflow?: undefined };
  if (workflow !== undefined) {
    // Workflow steps carry arguments of their own: they travel through the codec too, under the
    // wire key `flow`, and `workflow` is left out of the JSON.
    wire.workflow = undefined;
    wire.flow = codec.serialize(workflow, () => `the workflow of ${message.task}`);
  }
  const json = JSON.stringify(wire);
  const text = options.secret ? `${SIGNED_PREFIX}${hmac(json, options.secret)}:${json}` : json;
  if (options.maxBytes !== undefined) {
    const size = Buffer.byteLength(text);
    if (size > options.maxBytes) {
      throw new CeleriacError(
        'CELERIAC_MESSAGE_TOO_LARGE',
        `The message for ${message.task} is ${size} bytes, over the limit of ${options.maxBytes}. Pass a reference ` +
          `(a URL or a key) instead of the data, or raise the app's maxMessageSize.`,
      );
    }
  }
  return text;
}

/**
 * Decodes and checks a message.
 * @throws CeleriacError `CELERIAC_INVALID_MESSAGE` (not a message; an {@link InvalidMessageError}
 * when a field is wrong), `CELERIAC_BAD_SIGNATURE` (forged, or copied under another id) or
 * `CELERIAC_SIGNATURE_EXPIRED` (signed, but past its replay window).
 */
export function decodeMessage(codec: Codec, text: string, options: MessageCodecOptions = {}): TaskMessage {
  let json = text;
  if (text.startsWith(SIGNED_PREFIX)) {
    const end = text.indexOf(':', SIGNED_PREFIX.length);
    const mac = text.slice(SIGNED_PREFIX.length, end);
    json = text.slice(end + 1);
    if (options.secret && (end < 0 || !sameMac(mac, hmac(json, options.secret)))) {
      throw new CeleriacError(
        'CELERIAC_BAD_SIGNATURE',
        'The message signature does not match; it was forged or signed with another secret.',
      );
    }
  } else if (options.secret) {
    throw new CeleriacError(
      'CELERIAC_BAD_SIGNATURE',
      'The message is not signed, but this app requires signed messages (secret is set).',
    );
  }
  let wire: WireMessage;
  try {
    wire = JSON.parse(json) as WireMessage;
  } catch (error) {
    throw new CeleriacError('CELERIAC_INVALID_MESSAGE', `The message is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!isWireMessage(wire)) {
    throw new CeleriacError('CELERIAC_INVALID_MESSAGE', 'The message lacks arguments or a supported version.');
  }
  if (options.secret && options.delivery) checkReplayWindow(wire, options.delivery);
  const wireProblem =
    serializedProblem(wire.args, 'args') ??
    (wire.flow === undefined ? undefined : serializedProblem(wire.flow, 'flow'));
  if (wireProblem !== undefined) throw new InvalidMessageError(wireProblem);
  let args: unknown;
  try {
    args = codec.deserialize(wire.args);
  } catch (error) {
    throw new CeleriacError(
      'CELERIAC_INVALID_MESSAGE',
      `The arguments could not be decoded: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const { flow } = wire;
  const message = messageOf(wire);
  message.args = args as unknown[];
  if (flow !== undefined) {
    try {
      message.workflow = codec.deserialize(flow) as WorkflowFields;
    } catch (error) {
      throw new CeleriacError(
        'CELERIAC_INVALID_MESSAGE',
        `The workflow could not be decoded: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  // Every field is checked before anything reads it: a message written into Redis by hand, or by a
  // producer with a bug, is refused here with the field it got wrong.
  const problem = messageProblem(message as unknown as Record<string, unknown>);
  if (problem !== undefined) throw new InvalidMessageError(problem);
  return message;
}

/**
 * Reads a message that {@link decodeMessage} has already checked, for a process that trusts the one
 * that checked it (a pool child, given the exact text its worker decoded): its signature, fields and
 * workflow are not checked again, and only the arguments go through the codec (registered types
 * included). The workflow (wire key `flow`) is left out: only the worker uses it.
 * @throws CeleriacError `CELERIAC_INVALID_MESSAGE` when the arguments do not decode with this codec.
 */
export function readCheckedMessage(codec: Codec, text: string): TaskMessage {
  const json = text.startsWith(SIGNED_PREFIX) ? text.slice(text.indexOf(':', SIGNED_PREFIX.length) + 1) : text;
  const wire = JSON.parse(json) as WireMessage;
  const message = wire as unknown as TaskMessage;
  try {
    message.args = codec.deserialize(wire.args) as unknown[];
  } catch (error) {
    throw new CeleriacError(
      'CELERIAC_INVALID_MESSAGE',
      `The arguments could not be decoded: ${(error as Error).message}`,
      { cause: error },
    );
  }
  // Only when there is one: deleting a property makes V8 slow down the object's other reads.
  if (wire.flow !== undefined) delete wire.flow;
  return message;
}

/**
 * The freshly parsed object becomes the message (no copy: this runs for every task run). A workflow
 * step's is copied once, without its wire key `flow` (decoded into `workflow`); a `workflow` key on
 * the wire is not the message's workflow and is dropped the same way.
 */
function messageOf(wire: WireMessage & { workflow?: unknown }): TaskMessage {
  if (wire.flow === undefined && wire.workflow === undefined) return wire as unknown as TaskMessage;
  const { flow: _flow, workflow: _workflow, ...fields } = wire;
  return fields as unknown as TaskMessage;
}

/** The routing data a broker needs for a message. */
export function envelopeOf(message: TaskMessage, body: string, idempotent: boolean): Envelope {
  const envelope: Envelope = { id: message.id, queue: message.queue, priority: message.priority, idempotent, body };
  if (message.eta !== undefined) envelope.eta = message.eta;
  if (message.limits !== undefined) envelope.limits = message.limits;
  return envelope;
}

function isWireMessage(value: unknown): value is WireMessage {
  if (typeof value !== 'object' || value === null) return false;
  const wire = value as Partial<WireMessage>;
  return wire.version === MESSAGE_VERSION && typeof wire.args === 'object' && wire.args !== null;
}
