/** The CLI's logger: pino, as JSON lines (`--json-logs`) or as readable single lines. */
import pino, { type Logger as Pino, type LogFn } from 'pino';
import pretty from 'pino-pretty';

/** Log levels the CLI accepts. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fields a readable line leaves out of its tail when its message already says them (`Task add[id] ...`). */
const SAID_IN_MESSAGE = ['id', 'task'] as const;

/** Creates the process's logger; `name` tags every line (e.g. `worker`). */
export function createLogger(options: { level: LogLevel; json: boolean; name: string }): Pino {
  const base = { level: options.level, name: options.name };
  // JSON lines keep every field, for the tools that read them.
  if (options.json) return pino(base);
  return pino(
    { ...base, hooks: { logMethod: withoutRepeatedFields } },
    pretty({
      colorize: process.stdout.isTTY,
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'hostname,pid',
      singleLine: true,
    }),
  );
}

/** Drops the fields of {@link SAID_IN_MESSAGE} that the message already shows, then logs. */
function withoutRepeatedFields(this: Pino, args: Parameters<LogFn>, method: LogFn): void {
  const [fields, message] = args as unknown[];
  if (typeof fields === 'object' && fields !== null && !(fields instanceof Error) && typeof message === 'string') {
    const record = fields as Record<string, unknown>;
    const repeated = SAID_IN_MESSAGE.filter((key) => key in record && message.includes(String(record[key])));
    if (repeated.length > 0) {
      const kept = { ...record };
      for (const key of repeated) delete kept[key];
      args[0] = kept;
    }
  }
  method.apply(this, args);
}
