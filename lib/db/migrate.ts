// Applies prisma/migrations/*/migration.sql in order and records each in _prisma_migrations the way
// `prisma migrate deploy` does, so a machine running Prisma's own CLI sees the same state; then the
// SQL functions of prisma/functions/ as repeatable steps (Flyway's repeatable migrations), each
// re-applied when its file changes and recorded by name and checksum in _sql_functions. Between the
// two it writes the rows that code declares: the supplier kinds of lib/suppliers/kinds/.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { Logger, runMigrations as runQueueMigrations } from "graphile-worker";
import { projectRoot } from "../config/env";
import { syncSupplierKinds } from "../suppliers/sql/sync-supplier-kinds";

const migrationsDir = path.join(projectRoot, "prisma", "migrations");
export const functionsDir = path.join(projectRoot, "prisma", "functions");

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

const CREATE_FUNCTIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_sql_functions" (
  "name"       TEXT PRIMARY KEY,
  "checksum"   VARCHAR(64) NOT NULL,
  "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

// Migrations whose function bodies moved to prisma/functions/, with the checksum each had when a
// database applied it: such a row takes the new checksum (as Flyway's repair does), and any other
// edit of an applied migration still draws the warning.
const REWRITTEN_MIGRATIONS: Record<string, string> = {
  "20261125040000_raise_api_error": "039221d1998e852948b77fbd2dff890c0835c2e6a5aec481c6b5f9a74c793ff8",
  "20261125230000_sql_functions": "c95eaee7df2c8b11fab14558925db8de026a8b49af8ecb4f955f3d906a9f55f4",
  "20261126041000_stock_before_wallet": "595bcafb1702851eafdd80c811a676056ee4c1dea58b2cdabac5fecf45577ac3",
  "20261126060000_test_mode": "b7c6f37ae004f048d51df75b77806d71b6474dda9ff05ec47653e1ee3ae90992",
  "20261126080000_supplier_reference": "35a0bc94a9dde919b43ee5d372e2ff44b986502cbb88a4f00bba568fbb385627",
  "20261126093000_price_tiers": "ba9cda0ce1307425ad1d58f436aed9172e00aa53f75bc754c67a440a29c4f613",
  "20261128100000_production_real_suppliers": "daf021c6bbf89c027145eea771be7568864f20b05f1c5357e237566c38432634",
};

const quietQueueLogger = new Logger(() => () => undefined);

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest("hex");

export function listMigrations(dir = migrationsDir): MigrationFile[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: sha256(sql) };
    });
}

/** prisma/functions/<name>.sql, in name order (the order they are applied in). */
export function listFunctionFiles(dir = functionsDir): MigrationFile[] {
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .map((file) => {
      const sql = fs.readFileSync(path.join(dir, file), "utf8");
      return { name: file.slice(0, -".sql".length), sql, checksum: sha256(sql) };
    });
}

// Applies the function files that changed since they were last applied (every file after a
// migration, which forgets the records: it may have dropped or changed what a function stands on),
// in one transaction. The first pass skips body checks so that a file may call a function a later
// file defines (as pg_dump's restore does); the second checks every body against the complete set.
// A function whose parameters change needs a migration that drops the old one (docs/data-layer.md):
// CREATE OR REPLACE would add a second function of the name beside it, so the run refuses to end so.
async function applyFunctionFiles(client: pg.Client, dir: string, log: (line: string) => void): Promise<string[]> {
  const { rows } = await client.query<{ name: string; checksum: string }>(
    `SELECT name, checksum FROM "_sql_functions"`,
  );
  const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
  const due = listFunctionFiles(dir).filter((file) => recorded.get(file.name) !== file.checksum);
  if (!due.length) return [];
  let current = "";
  await client.query("BEGIN");
  try {
    for (const bodyChecks of ["off", "on"]) {
      await client.query(`SET LOCAL check_function_bodies = ${bodyChecks}`);
      for (const file of due) {
        current = file.name;
        await client.query(file.sql);
      }
    }
    const { rows: overloaded } = await client.query<{ name: string }>(
      `SELECT proname AS name FROM pg_proc WHERE pronamespace = 'public'::regnamespace AND proname = ANY($1)
        GROUP BY proname HAVING count(*) > 1`,
      [due.map((file) => file.name)],
    );
    if (overloaded.length) {
      current = overloaded[0]!.name;
      throw new Error(`it leaves two functions named ${current}: drop the old one in a migration`);
    }
    for (const file of due) {
      await client.query(
        `INSERT INTO "_sql_functions" (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [file.name, file.checksum],
      );
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw new Error(`SQL function file prisma/functions/${current}.sql failed: ${(error as Error).message}`);
  }
  for (const file of due) log(`applied function file ${file.name}.sql`);
  return due.map((file) => `${file.name}.sql`);
}

export async function applyMigrations(
  connectionString: string,
  options: { dir?: string; functionsDir?: string; log?: (line: string) => void } = {},
): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    await client.query(CREATE_FUNCTIONS_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const recorded = new Map(rows.map((row) => [row.migration_name, row]));
    for (const migration of listMigrations(options.dir)) {
      const previous = recorded.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum === migration.checksum) continue;
        if (REWRITTEN_MIGRATIONS[migration.name] === previous.checksum) {
          await client.query(
            `UPDATE "_prisma_migrations" SET checksum = $1 WHERE migration_name = $2 AND rolled_back_at IS NULL`,
            [migration.checksum, migration.name],
          );
          log(`recorded the new checksum of ${migration.name}, whose functions moved to prisma/functions/`);
        } else {
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
        await client.query(`DELETE FROM "_sql_functions"`);
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
    await syncSupplierKinds(client, log);
    // The fulfilment queue's own schema (graphile_worker), so the API can enqueue before any
    // worker has started.
    await runQueueMigrations({ connectionString, logger: quietQueueLogger });
    applied.push(...(await applyFunctionFiles(client, options.functionsDir ?? functionsDir, log)));
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
  return applied;
}
