// npm run db:migrate: applies prisma/migrations, then the changed files of prisma/functions, to
// DATABASE_URL, or to the embedded database.
import { withDatabase } from "./database";
import { applyMigrations } from "@/lib/db/migrate";

await withDatabase(async (url) => {
  const applied = await applyMigrations(url, { log: (line) => console.log(`[migrate] ${line}`) });
  console.log(
    applied.length
      ? `[migrate] ${applied.length} migration(s) and function file(s) applied`
      : "[migrate] database is up to date",
  );
});
