import pg from "pg";
import { inject } from "vitest";

let client: pg.Client | undefined;

export async function sql<T extends pg.QueryResultRow = Record<string, any>>(text: string, params: unknown[] = []) {
  if (!client) {
    client = new pg.Client({ connectionString: inject("databaseUrl") });
    await client.connect();
  }
  return (await client.query<T>(text, params)).rows;
}

export async function closeSql(): Promise<void> {
  await client?.end();
  client = undefined;
}

/** Empties every application table (migrations stay), so each test file starts clean. */
export async function resetDatabase(): Promise<void> {
  const tables = await sql<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`,
  );
  await sql(`TRUNCATE ${tables.map((t) => `"${t.tablename}"`).join(", ")} RESTART IDENTITY CASCADE`);
  const jobs = await sql(`SELECT 1 FROM pg_tables WHERE schemaname = 'graphile_worker' AND tablename = '_private_jobs'`);
  if (jobs.length) await sql(`TRUNCATE graphile_worker._private_jobs CASCADE`);
}
