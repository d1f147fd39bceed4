/** The `-l, --loglevel <level>` option of the long-running commands, in any case, with Celery's names too. */
import { InvalidArgumentError, Option } from 'commander';
import { LOG_LEVELS, type LogLevel } from './logger';

/** Celery's level names that pino spells otherwise. */
const ALIASES: Readonly<Record<string, LogLevel>> = { warning: 'warn', critical: 'fatal' };

/** `-l, --loglevel`: `debug`, `info` (the default), `warn`, `error`, `fatal`; `INFO`, `WARNING`, `CRITICAL` too. */
export function logLevelOption(): Option {
  return new Option('-l, --loglevel <level>', `log level: ${LOG_LEVELS.join(', ')} (any case; warning, critical too)`)
    .argParser(logLevel)
    .default('info');
}

/** A log level from the command line. */
export function logLevel(value: string): LogLevel {
  const lower = value.toLowerCase();
  const level = ALIASES[lower] ?? LOG_LEVELS.find((known) => known === lower);
  if (level === undefined)
    throw new InvalidArgumentError(`Expected one of ${LOG_LEVELS.join(', ')} (any case; warning and critical too).`);
  return level;
}
