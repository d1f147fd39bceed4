/** The LISTEN/NOTIFY channels of one schema, named so that they fit PostgreSQL's 63-byte identifiers. */
import { createHash } from 'node:crypto';

/** PostgreSQL truncates longer identifiers (LISTEN) or refuses them (`pg_notify`): names stay within. */
const MAX_CHANNEL = 63;

/**
 * The channel `purpose` of `schema`: `<schema>_<purpose>`, or, when that is too long, the schema's
 * head and a hash of the whole (still one channel per schema and purpose).
 */
export function channelName(schema: string, purpose: string): string {
  const plain = `${schema}_${purpose}`;
  if (plain.length <= MAX_CHANNEL) return plain;
  const hash = createHash('sha1').update(plain).digest('hex').slice(0, 10);
  return `${schema.slice(0, MAX_CHANNEL - purpose.length - hash.length - 2)}_${hash}_${purpose}`;
}
