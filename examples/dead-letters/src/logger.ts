/** A worker logger that prints warnings and errors as indented lines tagged with the process. */
import type { Logger } from 'celeriac';

/** Prints `  <tag>: <message>` for warnings and errors; drops debug and info. */
export function taggedLogger(tag: string): Logger {
  const print = (_fields: object, message: string) => console.log(`  ${tag}: ${message}`);
  return { debug: () => undefined, info: () => undefined, warn: print, error: print };
}
