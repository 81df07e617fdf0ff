// Resolves the database for a command: DATABASE_URL when set, else the embedded PostgreSQL under
// .data/ (started for the command, and stopped after it if this command started it).
import { env } from "@/lib/config/env";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/lib/db/embedded";

export async function resolveDatabase(
  options: { database?: string; dataDir?: string; port?: number } = {},
): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  const config = env();
  if (config.databaseUrl) return { url: config.databaseUrl };
  console.log("[db] DATABASE_URL is not set: using embedded PostgreSQL under", options.dataDir ?? config.dataDir);
  const embedded = await startEmbeddedPostgres({
    dataDir: options.dataDir ?? config.dataDir,
    port: options.port ?? config.embeddedPgPort,
    database: options.database ?? "topup",
  });
  return { url: embedded.url, embedded };
}

export async function withDatabase(fn: (url: string) => Promise<void>): Promise<void> {
  const { url, embedded } = await resolveDatabase();
  try {
    await fn(url);
  } finally {
    await embedded?.stop();
  }
}
