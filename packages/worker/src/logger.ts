/** The logger a worker writes to: any object with `debug`, `info`, `warn` and `error` (pino fits). */
import { warningsToStderr, type Logger } from '@celeriac/core';

export type { Logger };

/** Logs warnings and errors to stderr; drops the rest. The default for in-process workers. */
export const quietLogger: Logger = warningsToStderr('celeriac');
