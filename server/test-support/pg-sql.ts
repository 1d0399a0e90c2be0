import pg from 'pg';
import { NOTIFY_CHANNEL } from '../storage/postgres/cluster-events';

/** Runs one statement on a connection of its own; its rows. */
export async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** Ends every node's listening connection (as a network cut would). */
export async function dropListeners(url: string): Promise<void> {
  await sql(url, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN ${NOTIFY_CHANNEL}'`);
}
