/** The logger a scheduler writes to: the same shape as a worker's (pino fits). */
import { type Logger } from '@celeriac/core';
import { warningsToStderr } from '@celeriac/core/internal';

/** Structured log sink: `fields` first, then a human message. */
export type BeatLogger = Logger;

/** Logs warnings and errors to stderr; drops the rest. The default for in-process schedulers. */
export const quietBeatLogger: BeatLogger = warningsToStderr('celeriac beat');
