// Resolves the database for a command: DATABASE_URL when set, else the embedded PostgreSQL under
// .data/ (started for the command, and stopped after it if this command started it).
import { env } from "@/lib/config/env";
import { startEmbeddedPostgresProcess, type EmbeddedPostgresProcess } from "@/lib/db/embedded-process";
import { logger } from "@/lib/observability/logger";

export async function resolveDatabase(
  options: { database?: string; dataDir?: string; port?: number } = {},
): Promise<{ url: string; embedded?: EmbeddedPostgresProcess }> {
  const config = env();
  if (config.databaseUrl) return { url: config.databaseUrl };
  logger("db").info(`DATABASE_URL is not set: using embedded PostgreSQL under ${options.dataDir ?? config.dataDir}`);
  // In a process of its own, as `npm start` runs it: Ctrl-C reaches this command, which stops the
  // database after whatever uses it.
  const embedded = await startEmbeddedPostgresProcess({
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
