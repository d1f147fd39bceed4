/** Reading a runtime beat entry back from its row. */
import type { StoredBeatEntry } from '@celeriac/core';

/**
 * The entry stored as `text` under `name`. The row's name wins over the one inside (with a secret,
 * the signature covers the name, so an entry moved to another row no longer matches). Text that is
 * not a JSON object (edited by hand) comes back as a bare name, which the scheduler refuses and
 * logs: one bad row must not keep the other entries from firing.
 */
export function readStoredEntry(name: string, text: string): StoredBeatEntry {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { ...(value as StoredBeatEntry), name };
    }
  } catch {
    // Not JSON: a bare name, refused by the scheduler.
  }
  return { name } as StoredBeatEntry;
}
