/**
 * Keyword arguments on the Celeriac side: a caller marks them with {@link kwargs} as the last
 * argument; they travel in the body's kwargs slot. (Python's arrive as a plain last object.)
 */
const KWARGS = '__celery_kwargs__';

/**
 * Keyword arguments for a Celery task, as the last argument of a call:
 * `sendTask('proj.add', [2, kwargs({ b: 3 })])`.
 */
export interface CeleryKwargs {
  readonly [KWARGS]: Record<string, unknown>;
}

/** Marks `values` as the keyword arguments of a call to a Python task. */
export function kwargs(values: Record<string, unknown>): CeleryKwargs {
  return { [KWARGS]: values };
}

/** Splits a call's arguments into positional ones and the keyword arguments marked last. */
export function splitKwargs(args: readonly unknown[]): { args: unknown[]; kwargs: Record<string, unknown> } {
  const last = args[args.length - 1];
  if (typeof last === 'object' && last !== null && KWARGS in last) {
    return { args: args.slice(0, -1), kwargs: (last as CeleryKwargs)[KWARGS] };
  }
  return { args: [...args], kwargs: {} };
}
