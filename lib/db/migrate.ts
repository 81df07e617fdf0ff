// Applies prisma/migrations/*/migration.sql in order and records each in _prisma_migrations the way
// `prisma migrate deploy` does, so a connected machine running Prisma's own CLI sees the same state.
// It exists because Prisma's schema engine binary cannot be downloaded on these machines.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { Logger, runMigrations as runQueueMigrations } from "graphile-worker";
import { projectRoot } from "../config/env";

export const migrationsDir = path.join(projectRoot, "prisma", "migrations");

// Serialises concurrent migrators (several app instances starting at once).
const MIGRATION_LOCK_ID = 72_707_001;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

const quietQueueLogger = new Logger(() => () => undefined);

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function listMigrations(dir = migrationsDir): MigrationFile[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: crypto.createHash("sha256").update(sql).digest("hex") };
    });
}

export async function applyMigrations(
  connectionString: string,
  options: { dir?: string; log?: (line: string) => void } = {},
): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const recorded = new Map(rows.map((row) => [row.migration_name, row]));
    for (const migration of listMigrations(options.dir)) {
      const previous = recorded.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum !== migration.checksum) {
          log(`warning: migration ${migration.name} was edited after it was applied`);
        }
        continue;
      }
      if (previous) {
        throw new Error(
          `Migration ${migration.name} failed earlier and is recorded as unfinished; fix the database, then delete its row from _prisma_migrations.`,
        );
      }
      const id = crypto.randomUUID();
      await client.query("BEGIN");
      try {
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`,
          [id, migration.checksum, migration.name],
        );
        await client.query(migration.sql);
        await client.query(
          `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
          [id],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`);
      }
      applied.push(migration.name);
      log(`applied migration ${migration.name}`);
    }
    // The fulfilment queue's own schema (graphile_worker), so the API can enqueue before any
    // worker has started.
    await runQueueMigrations({ connectionString, logger: quietQueueLogger });
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
  return applied;
}
