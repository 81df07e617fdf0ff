import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { diffSchemaAgainstDatabase } from "../helpers/schema-diff";
import { closeSql, sql } from "../helpers/db";

const schemaText = fs.readFileSync(path.join(projectRoot, "prisma", "schema.prisma"), "utf8");

afterAll(closeSql);

describe("prisma/migrations build exactly what schema.prisma describes", () => {
  it("finds no difference between schema.prisma and the migrated database", async () => {
    expect(await diffSchemaAgainstDatabase(schemaText, (text) => sql(text))).toEqual([]);
  });

  it("reports a column added to schema.prisma without a migration", async () => {
    const drifted = schemaText.replace(
      "model Account {\n",
      'model Account {\n  loyaltyTier        String?   @map("loyalty_tier")\n',
    );
    expect(drifted).not.toBe(schemaText);
    expect(await diffSchemaAgainstDatabase(drifted, (text) => sql(text))).toEqual([
      "column accounts.loyalty_tier (field Account.loyaltyTier) is missing in the database",
    ]);
  });

  it("reports an index, a type change and a nullability change that the migrations lack", async () => {
    const drifted = schemaText
      .replace("  @@index([telegramUsername])\n", "  @@index([telegramUsername])\n  @@index([displayName])\n")
      .replace("  name               String?\n  /// When true", "  name               String\n  /// When true")
      .replace("  attempts           Int         @default(0)", "  attempts           BigInt      @default(0)");
    const problems = await diffSchemaAgainstDatabase(drifted, (text) => sql(text));
    expect(problems).toContain("index accounts(display_name) is in the schema but not in the database");
    expect(problems).toContain("column api_keys.name: database allows NULL, schema requires a value");
    expect(problems).toContain("column orders.attempts: database type int4, schema wants int8");
  });

  it("records every migration in _prisma_migrations as Prisma does", async () => {
    const dirs = fs
      .readdirSync(path.join(projectRoot, "prisma", "migrations"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const rows = await sql(
      `SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM _prisma_migrations ORDER BY migration_name`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(dirs);
    for (const row of rows) {
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
