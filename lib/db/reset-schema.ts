// Drops everything the service created in a database (public and the job queue's schema) and
// recreates an empty public schema. Destructive: used only by the test harness and the benchmark,
// each on a database of its own.
import pg from "pg";

export async function resetSchema(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET client_min_messages = warning");
    await client.query("DROP SCHEMA IF EXISTS graphile_worker CASCADE");
    await client.query("DROP SCHEMA public CASCADE");
    await client.query("CREATE SCHEMA public");
  } finally {
    await client.end();
  }
}
