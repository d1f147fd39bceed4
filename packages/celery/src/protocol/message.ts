/**
 * Translates between Celeriac's task message and Celery protocol v2 as kombu's Redis transport
 * stores it. Positional arguments cross as they are; Python keyword arguments reach a Celeriac task
 * as one last argument (an object), and a Celeriac caller passes keyword arguments with
 * {@link kwargs}. What only Celeriac uses (its workflow, user headers) rides in the `x_celeriac`
 * header, which Celery ignores.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { CeleriacError, type Codec, type WorkflowFields } from '@celeriac/core';
import { MESSAGE_VERSION, type TaskMessage } from '@celeriac/core/internal';
import { assertKombuJson, parseKombuJson, stringifyKombuJson, withZone } from './kombu-json';
import { celeryChainOf } from './chain';
import { splitKwargs } from './kwargs';
import { JSON_CONTENT_TYPE, type CeleryEmbed, type CeleryPayload } from './payload';

/**
 * What of Celeriac's message has no Celery header, carried in `x_celeriac`. The message's
 * `workflow` rides there under `flow`, the key messages already queued carry: kept for them.
 */
type CeleriacExtras = Pick<
  TaskMessage,
  'maxRetries' | 'resultTtl' | 'headers' | 'replyTo' | 'dependsOn' | 'limits' | 'publishedAt'
> & { flow?: WorkflowFields };

const EMPTY_EMBED: CeleryEmbed = { callbacks: null, errbacks: null, chain: null, chord: null };
const ORIGIN = `celeriac@${hostname()}`;

/**
 * The Celery message for a Celeriac task message: its body base64 as kombu's Redis transport writes
 * it, or (`bodyEncoding: 'text'`) the JSON text itself, as on AMQP.
 */
export function toCeleryPayload(
  codec: Codec,
  message: TaskMessage,
  given?: CeleryEmbed,
  bodyEncoding: 'base64' | 'text' = 'base64',
): CeleryPayload {
  // A plain chain travels as Celery's own, so a Python worker running a step sends the next one.
  const chain = given ? undefined : celeryChainOf(message.workflow, message.queue);
  const embed = given ?? (chain ? { ...EMPTY_EMBED, chain } : EMPTY_EMBED);
  const { args, kwargs: named } = splitKwargs(message.args);
  assertKombuJson(args, `the arguments of ${message.task}`);
  assertKombuJson(named, `the keyword arguments of ${message.task}`);
  const extras: CeleriacExtras = {
    headers: message.headers,
    publishedAt: message.publishedAt,
    ...(message.maxRetries !== undefined ? { maxRetries: message.maxRetries } : {}),
    ...(message.resultTtl !== undefined ? { resultTtl: message.resultTtl } : {}),
    ...(message.replyTo !== undefined ? { replyTo: message.replyTo } : {}),
    ...(message.workflow !== undefined && !chain ? { flow: message.workflow } : {}),
    ...(message.dependsOn !== undefined ? { dependsOn: message.dependsOn } : {}),
    ...(message.limits !== undefined ? { limits: message.limits } : {}),
  };
  const body = stringifyKombuJson([args, named, embed]);
  return {
    body: bodyEncoding === 'base64' ? Buffer.from(body).toString('base64') : body,
    'content-encoding': 'utf-8',
    'content-type': JSON_CONTENT_TYPE,
    headers: {
      lang: 'js',
      task: message.task,
      id: message.id,
      shadow: null,
      eta: isoOrNull(message.eta),
      expires: isoOrNull(message.expires),
      group: null,
      group_index: null,
      retries: message.retries,
      timelimit: [seconds(message.timeLimit), seconds(message.softTimeLimit)],
      root_id: message.rootId ?? message.id,
      parent_id: message.parentId ?? null,
      argsrepr: stringifyKombuJson(args),
      kwargsrepr: stringifyKombuJson(named),
      origin: ORIGIN,
      ignore_result: message.ignoreResult ?? false,
      x_celeriac: codec.stringify(extras, () => `the Celeriac fields of ${message.task}`),
    },
    properties: {
      correlation_id: message.id,
      reply_to: message.replyTo ?? '',
      delivery_mode: 2,
      delivery_info: { exchange: '', routing_key: message.queue },
      priority: message.priority,
      ...(bodyEncoding === 'base64' ? { body_encoding: 'base64' as const } : {}),
      delivery_tag: randomUUID(),
    },
  };
}

/**
 * The Celeriac message for a Celery message taken from `queue`.
 * @throws CeleriacError `CELERIAC_UNSUPPORTED_CONTENT` for a body that is not JSON (pickle, YAML,
 * msgpack), `CELERIAC_INVALID_MESSAGE` for one that is not a protocol v2 task message.
 */
export function fromCeleryPayload(
  codec: Codec,
  payload: CeleryPayload,
  queue: string,
  onEmbed?: (embed: CeleryEmbed) => void,
): TaskMessage {
  const contentType = payload['content-type'];
  if (contentType !== JSON_CONTENT_TYPE) {
    throw new CeleriacError(
      'CELERIAC_UNSUPPORTED_CONTENT',
      `Task ${String(payload.headers?.task)}[${String(payload.headers?.id)}] was sent as ${contentType}; Celeriac ` +
        `reads JSON only (pickle would run code from a message). Set task_serializer = 'json' on the Python side.`,
    );
  }
  const { headers, properties } = payload;
  if (typeof headers?.id !== 'string' || typeof headers.task !== 'string') {
    throw new CeleriacError(
      'CELERIAC_INVALID_MESSAGE',
      'The Celery message has no task or id header: only protocol v2 messages (Celery 4 and later) are read.',
    );
  }
  const [args, named, embed] = decodeBody(payload.body, properties?.body_encoding);
  onEmbed?.(embed);
  const extras = headers.x_celeriac === undefined ? undefined : (codec.parse(headers.x_celeriac) as CeleriacExtras);
  const [hard, soft] = Array.isArray(headers.timelimit) ? headers.timelimit : [null, null];
  const message: TaskMessage = {
    version: MESSAGE_VERSION,
    id: headers.id,
    task: headers.task,
    args: Object.keys(named).length > 0 ? [...args, named] : args,
    queue,
    priority: typeof properties?.priority === 'number' ? properties.priority : 0,
    retries: typeof headers.retries === 'number' ? headers.retries : 0,
    headers: extras?.headers ?? {},
    publishedAt: extras?.publishedAt ?? Date.now(),
  };
  const eta = epoch(headers.eta);
  if (eta !== undefined) message.eta = eta;
  const expires = epoch(headers.expires);
  if (expires !== undefined) message.expires = expires;
  if (typeof hard === 'number') message.timeLimit = hard * 1000;
  if (typeof soft === 'number') message.softTimeLimit = soft * 1000;
  if (headers.ignore_result === true) message.ignoreResult = true;
  if (typeof headers.parent_id === 'string') message.parentId = headers.parent_id;
  if (typeof headers.root_id === 'string') message.rootId = headers.root_id;
  if (extras) {
    // `workflow` is not a key of x_celeriac: only `flow` is read as the workflow.
    const { flow, workflow: _workflow, ...fields } = extras as CeleriacExtras & { workflow?: unknown };
    Object.assign(message, withoutUndefined({ ...fields, headers: undefined, publishedAt: undefined }));
    if (flow !== undefined) message.workflow = flow;
  }
  return message;
}

/** The body's `[args, kwargs, embed]`. */
export function decodeBody(
  body: string,
  encoding: string | undefined,
): [unknown[], Record<string, unknown>, CeleryEmbed] {
  let decoded: unknown;
  try {
    decoded = parseKombuJson(encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body);
  } catch (error) {
    throw new CeleriacError(
      'CELERIAC_INVALID_MESSAGE',
      `The Celery message body is not JSON: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (!Array.isArray(decoded) || !Array.isArray(decoded[0])) {
    throw new CeleriacError(
      'CELERIAC_INVALID_MESSAGE',
      'The Celery message body is not [args, kwargs, embed]: only protocol v2 messages (Celery 4 and later) are read.',
    );
  }
  const named = typeof decoded[1] === 'object' && decoded[1] !== null ? (decoded[1] as Record<string, unknown>) : {};
  const embed = { ...EMPTY_EMBED, ...(decoded[2] as Partial<CeleryEmbed> | undefined) };
  return [decoded[0] as unknown[], named, embed];
}

function isoOrNull(epochMs: number | undefined): string | null {
  return epochMs === undefined ? null : new Date(epochMs).toISOString();
}

function seconds(ms: number | undefined): number | null {
  return ms === undefined ? null : ms / 1000;
}

function epoch(iso: unknown): number | undefined {
  if (typeof iso !== 'string') return undefined;
  const time = Date.parse(withZone(iso));
  return Number.isFinite(time) ? time : undefined;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
