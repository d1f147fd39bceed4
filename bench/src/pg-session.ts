/** One PostgreSQL session for the length of `work`, for the PostgreSQL lanes' own reads and setup. */
import { Client } from 'pg';

/** Runs `work` on a session of its own to `url`, ended after. */
export async function withSession<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
