// npm run lint:sql: the project's SQL, without a database.
// - Every file of prisma/functions/ parses with PostgreSQL's own parser, PL/pgSQL and SQL bodies too.
// - Every migration parses, and none defines a function or trigger that prisma/functions/ defines
//   (a function's one current definition is its file: docs/data-layer.md).
// - Squawk (squawk-cli), the migration linter, passes the migrations newer than SQUAWK_AFTER.
//   Older ones have run on databases and are recorded by checksum, so their findings can no longer
//   be acted on. The rules left out, and why, are SQUAWK_EXCLUDED below; a migration that must do
//   what a rule warns of says so on the statement: `-- squawk-ignore <rule>` and a reason.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { projectRoot } from "@/lib/config/env";
import { listFunctionFiles, listMigrations } from "@/lib/db/migrate";
import { definedObjects, functionFileProblem, repeatedDefinitions } from "./sql-definitions";

/** The newest migration from before Squawk checked them; every later one is checked. */
const SQUAWK_AFTER = "20261128140000_telegram_admins";

const SQUAWK_EXCLUDED = [
  // The migrate command runs each migration in one transaction (lib/db/migrate.ts), where
  // CREATE/DROP INDEX CONCURRENTLY is refused.
  "require-concurrent-index-creation",
  "require-concurrent-index-deletion",
  // Ids and counts are Prisma's Int (integer), read as JavaScript numbers; a column that refers to
  // one has its type.
  "prefer-bigint-over-int",
  // Prisma writes @default(autoincrement()) as SERIAL, and migrations are its `migrate diff` output.
  "prefer-identity",
];

const SQUAWK_ARGS = [
  // lib/db/migrate.ts wraps each migration in BEGIN ... COMMIT.
  "--assume-in-transaction",
  // The oldest PostgreSQL this runs on: CI's Debian server (embedded PostgreSQL is 18).
  "--pg-version=15",
  ...SQUAWK_EXCLUDED.map((rule) => `--exclude=${rule}`),
];

const failures: string[] = [];
const files = listFunctionFiles();
const migrations = listMigrations();

for (const file of files) {
  const problem = functionFileProblem(file.sql);
  if (problem) failures.push(`prisma/functions/${file.name}.sql does not parse: ${problem}`);
}
const parsed = migrations.filter((migration) => {
  try {
    definedObjects(migration.sql);
    return true;
  } catch (error) {
    failures.push(`prisma/migrations/${migration.name}/migration.sql does not parse: ${(error as Error).message}`);
    return false;
  }
});
for (const repeated of repeatedDefinitions(parsed, files))
  failures.push(`${repeated}, which prisma/functions/ defines: a migration carries no function body`);
console.log(
  `[lint:sql] PostgreSQL's parser: ${files.length} function files, ${migrations.length} migrations, ${failures.length} problems`,
);

const checked = migrations.filter((migration) => migration.name > SQUAWK_AFTER);
if (checked.length === 0) {
  console.log(`[lint:sql] squawk: no migration after ${SQUAWK_AFTER} to check`);
} else {
  const squawk = spawnSync(
    path.join(projectRoot, "node_modules", ".bin", "squawk"),
    [...SQUAWK_ARGS, ...checked.map((migration) => path.join("prisma", "migrations", migration.name, "migration.sql"))],
    { cwd: projectRoot, stdio: "inherit" },
  );
  if (squawk.status !== 0) failures.push(`squawk found problems in the migrations after ${SQUAWK_AFTER} (above)`);
  else console.log(`[lint:sql] squawk: ${checked.length} migration(s) after ${SQUAWK_AFTER}, no problems`);
}

for (const failure of failures) console.error(`[lint:sql] ${failure}`);
process.exit(failures.length ? 1 : 0);
