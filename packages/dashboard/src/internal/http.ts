/** Small helpers for answering HTTP requests: JSON replies, typed errors and bounded JSON bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest request body the API reads (an action carries a few ids, not more). */
const MAX_BODY_BYTES = 256 * 1024;

/** An error that becomes an HTTP answer: a status, a `code` and a message saying what to do. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Headers every answer carries: no caching of live data, no sniffing, no framing by other sites. */
export function secureHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
}

/** Answers with `value` as JSON. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Answers with an error: `{ code, message }`; anything but an HttpError is a 500 that keeps its code. */
export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof HttpError) return sendJson(res, error.status, { code: error.code, message: error.message });
  const code = (error as { code?: unknown }).code;
  sendJson(res, 500, {
    code: typeof code === 'string' ? code : 'CELERIAC_DASHBOARD_ERROR',
    message: error instanceof Error ? error.message : String(error),
  });
}

/** Reads a JSON object body (at most 256 KiB); a 400 says what was wrong with it. */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/json'))
    throw new HttpError(415, 'CELERIAC_BAD_REQUEST', 'Send the action as JSON (Content-Type: application/json).');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'CELERIAC_BAD_REQUEST', 'The request body is over 256 KiB.');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'CELERIAC_BAD_REQUEST', `The body is not JSON: ${(error as Error).message}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new HttpError(400, 'CELERIAC_BAD_REQUEST', 'The body must be a JSON object, e.g. {"ids": ["..."]}.');
  return parsed as Record<string, unknown>;
}

/** The ids of an action body: `{ ids: [...] }` or `{ all: true }` (never both, never neither). */
export function selectionOf(body: Record<string, unknown>): string[] | 'all' {
  const { ids, all } = body;
  if (all === true && ids === undefined) return 'all';
  if (all === undefined && Array.isArray(ids) && ids.length > 0 && ids.every((id) => typeof id === 'string'))
    return ids;
  throw new HttpError(400, 'CELERIAC_BAD_REQUEST', 'Give {"ids": ["<id>", ...]} (at least one id) or {"all": true}.');
}

/** A string field of a body or query, or a 400 naming it. */
export function stringField(value: unknown, name: string): string {
  if (typeof value === 'string' && value !== '') return value;
  throw new HttpError(400, 'CELERIAC_BAD_REQUEST', `"${name}" must be a non-empty string.`);
}
