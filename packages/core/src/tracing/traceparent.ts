/**
 * The W3C `traceparent` header (https://www.w3.org/TR/trace-context/): how a task message carries
 * the span of the call that sent it, so the worker's run span joins the caller's trace.
 */

/** The header's name in a message's `headers`. */
export const TRACEPARENT_HEADER = 'traceparent';

/** version-traceid-spanid-flags, lower-case hex; a later version may append fields after a dash. */
const PATTERN = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[^\s]*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The parts of a `traceparent` value. */
export interface TraceParent {
  traceId: string;
  spanId: string;
  /** Bit 0: sampled. */
  traceFlags: number;
}

/** The parts of a valid `traceparent` value, or undefined when it is not one. */
export function parseTraceparent(value: string): TraceParent | undefined {
  const match = PATTERN.exec(value);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  // Version ff is forbidden; version 00 has exactly four fields; all-zero ids are invalid.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) };
}

/** True when `value` is a valid `traceparent`. */
export function isTraceparent(value: unknown): boolean {
  return typeof value === 'string' && parseTraceparent(value) !== undefined;
}

/** The version 00 `traceparent` of a span. */
export function formatTraceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${(parent.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}
