// Prisma CLI configuration. The runtime client connects through @prisma/adapter-pg (lib/db);
// migrations are applied by scripts/migrate.ts, so this file serves `prisma generate` and
// `prisma migrate diff` (docs/operations.md).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  // Read by the Prisma CLI, not the service, so not through lib/config.
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/unused" },
});
