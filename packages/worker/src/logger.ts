/** The logger a worker writes to: any object with `debug`, `info`, `warn` and `error` (pino fits). */
import { type Logger } from '@celeriac/core';
import { warningsToStderr } from '@celeriac/core/internal';

export type { Logger };

/** Logs warnings and errors to stderr; drops the rest. The default for in-process workers. */
export const quietLogger: Logger = warningsToStderr('celeriac');
