/** The logger a scheduler writes to: any object with these four methods (pino fits). */

/** Structured log sink: `fields` first, then a human message. */
export interface BeatLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Logs warnings and errors to stderr; drops the rest. The default for in-process schedulers. */
export const quietBeatLogger: BeatLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (fields, message) => console.warn(`[celeriac beat] ${message}`, fields),
  error: (fields, message) => console.error(`[celeriac beat] ${message}`, fields),
};
