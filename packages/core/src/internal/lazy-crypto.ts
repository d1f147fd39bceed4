/**
 * node:crypto, loaded on first use. It pulls in the stream modules and costs ~4 ms at start-up,
 * which every `fork` pool child (a process per task) would pay to load the app, though most tasks
 * never make an id or check a signature.
 */
type Crypto = typeof import('node:crypto');

let loaded: Crypto | undefined;

/** The node:crypto module. */
export function crypto(): Crypto {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('node:crypto') as Crypto;
  return loaded;
}

/** A random UUID (v4). */
export function randomUUID(): string {
  return crypto().randomUUID();
}
