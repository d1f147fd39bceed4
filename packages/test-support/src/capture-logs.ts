/** A logger for workers in tests that keeps what it is told. */
import type { Logger } from 'celeriac';

/** One line a worker logged. */
export interface LogEntry {
  level: keyof Logger;
  fields: object;
  message: string;
}

/** A logger that keeps what it is told, for workers in tests. */
export function captureLogs(): { logger: Logger; logs: LogEntry[] } {
  const logs: LogEntry[] = [];
  const entry = (level: keyof Logger) => (fields: object, message: string) =>
    void logs.push({ level, fields, message });
  return { logs, logger: { debug: entry('debug'), info: entry('info'), warn: entry('warn'), error: entry('error') } };
}
