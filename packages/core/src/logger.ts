/** The logger workers and schedulers write to: any object with these four methods (pino fits). */

/** Structured log sink: `fields` first, then a human message. */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** A logger that writes warnings and errors to stderr, each line starting with `[label]`, and drops the rest. */
export function warningsToStderr(label: string): Logger {
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (fields, message) => console.warn(`[${label}] ${message}`, fields),
    error: (fields, message) => console.error(`[${label}] ${message}`, fields),
  };
}
