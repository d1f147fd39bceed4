/**
 * The shape of a Celery protocol v2 message as kombu's Redis transport stores it in a queue list:
 * a JSON object with the base64 body `[args, kwargs, embed]`, the task headers and the AMQP-like
 * properties. Only the fields Celeriac reads or writes are typed.
 */

/** Celery's workflow fields inside the body: what runs after the task. */
export interface CeleryEmbed {
  callbacks: CelerySignature[] | null;
  errbacks: CelerySignature[] | null;
  /** The rest of a chain, last step first (a worker pops from the end). */
  chain: CelerySignature[] | null;
  chord: CelerySignature | null;
}

/** A Celery signature as it travels in JSON (`celery.canvas.Signature` is a dict). */
export interface CelerySignature {
  task: string;
  args?: unknown[];
  kwargs?: Record<string, unknown>;
  options?: Record<string, unknown>;
  subtask_type?: string | null;
  immutable?: boolean;
  chord_size?: number | null;
}

/** The task headers of protocol v2. */
export interface CeleryHeaders {
  lang: string;
  task: string;
  id: string;
  shadow: string | null;
  /** ISO-8601 with time zone, or null. */
  eta: string | null;
  expires: string | null;
  group: string | null;
  group_index: number | null;
  retries: number;
  /** `[hard, soft]` in seconds (the order the code uses). */
  timelimit: [number | null, number | null];
  root_id: string | null;
  parent_id: string | null;
  argsrepr: string;
  kwargsrepr: string;
  origin: string;
  ignore_result?: boolean;
  /** Celeriac's own fields (workflow, user headers, result TTL), codec text; Celery ignores it. */
  x_celeriac?: string;
  [other: string]: unknown;
}

/** The properties, with `delivery_tag`, without which a Python worker fails (KeyError). */
export interface CeleryProperties {
  correlation_id: string;
  reply_to: string;
  delivery_mode: number;
  delivery_info: { exchange: string; routing_key: string };
  priority: number;
  /** Absent: the body is the JSON text itself (on AMQP); kombu's Redis transport writes it base64. */
  body_encoding?: 'base64';
  delivery_tag: string;
}

/** One message in a kombu Redis queue list. */
export interface CeleryPayload {
  body: string;
  'content-encoding': string;
  'content-type': string;
  headers: CeleryHeaders;
  properties: CeleryProperties;
}

/** The content type of JSON bodies: the only one Celeriac reads (no code runs from a message). */
export const JSON_CONTENT_TYPE = 'application/json';
