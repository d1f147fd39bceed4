/** Counts Redis commands (INFO commandstats), including those run inside Lua scripts. */
import Redis from 'ioredis';

/** Total commands Redis has executed since its stats were last reset. */
export async function totalCommands(client: Redis): Promise<number> {
  const info = await client.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/calls=(\d+)/g)) total += Number(match[1]);
  return total;
}

/** Calls per command since the stats were last reset (INFO commandstats), by command name. */
export async function commandCounts(client: Redis): Promise<Map<string, number>> {
  const info = await client.info('commandstats');
  return new Map(
    [...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((match) => [match[1] ?? '', Number(match[2])]),
  );
}

/** Deletes the keys under a prefix, found with SCAN; nothing else is touched. */
export async function deleteKeys(client: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await client.unlink(...keys);
  } while (cursor !== '0');
}
