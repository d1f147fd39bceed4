/** The CLI's logger: pino, as JSON lines (`--json-logs`) or as readable single lines. */
import pino, { type Logger as Pino } from 'pino';
import pretty from 'pino-pretty';

/** Log levels the CLI accepts. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Creates the process's logger; `name` tags every line (e.g. `worker`). */
export function createLogger(options: { level: LogLevel; json: boolean; name: string }): Pino {
  const base = { level: options.level, name: options.name };
  if (options.json) return pino(base);
  return pino(
    base,
    pretty({
      colorize: process.stdout.isTTY,
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'hostname,pid',
      singleLine: true,
    }),
  );
}
