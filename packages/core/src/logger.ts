/** The logger workers and schedulers write to: any object with these four methods (pino fits). */

/** Structured log sink: `fields` first, then a human message. */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  /**
   * False when lines of `level` are dropped, so that callers on a hot path (a line per task) can
   * skip building them. Optional; pino's has this signature.
   */
  isLevelEnabled?(level: LogLevel): boolean;
}

/** The levels of a {@link Logger}. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** True unless `logger` says it drops lines of `level`. */
export function logsAt(logger: Logger, level: LogLevel): boolean {
  return logger.isLevelEnabled?.(level) ?? true;
}

/** A logger that writes warnings and errors to stderr, each line starting with `[label]`, and drops the rest. */
export function warningsToStderr(label: string): Logger {
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (fields, message) => console.warn(`[${label}] ${message}`, fields),
    error: (fields, message) => console.error(`[${label}] ${message}`, fields),
    isLevelEnabled: (level) => level === 'warn' || level === 'error',
  };
}
