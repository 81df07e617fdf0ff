// The data layer by folder (docs/data-layer.md): raw SQL runs only in a domain's `lib/<domain>/sql/`
// modules; everything else goes through Prisma Client. A module runs raw SQL when it imports pg for
// its values, takes getPool or withTransaction from lib/db/pool, builds a statement with lib/db/run-sql,
// calls a pg client's query, or calls Prisma's $queryRaw*/$executeRaw*. A type-only import cannot run
// a query. tests/, bench/, scripts/, lib/db/ itself and Prisma's generated client are outside the rule.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";

const EXEMPT = ["tests/", "bench/", "scripts/", "lib/db/", "lib/generated/", "sdk/"];
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".next", ".git", ".data", "test-results", "playwright-report"]);
const SQL_MODULE = /^lib\/[a-z0-9-]+\/sql\/[a-z0-9-]+\.ts$/;

function sourceFiles(directory: string, relative = ""): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const rel = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory())
      return SKIPPED_DIRECTORIES.has(entry.name) ? [] : sourceFiles(path.join(directory, entry.name), rel);
    return /\.(tsx?|mts|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [rel] : [];
  });
}

/** How `source` runs raw SQL, if it does. */
function rawSqlUses(source: string): string[] {
  const uses: string[] = [];
  for (const match of source.matchAll(/import\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/g)) {
    const [, typeOnly, clause = "", from = ""] = match;
    if (typeOnly) continue;
    const names = clause
      .replace(/[{}]/g, "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name && !name.startsWith("type "));
    if (from === "pg" || from.startsWith("pg/")) uses.push(`imports ${from}`);
    if (/(^|\/)db\/pool$/.test(from)) {
      for (const name of names)
        if (/^(getPool|withTransaction)\b/.test(name)) uses.push(`takes ${name.split(/\s/)[0]} from ${from}`);
      if (clause.includes("*")) uses.push(`imports all of ${from}`);
    }
    if (/(^|\/)db\/run-sql$/.test(from) && names.length) uses.push(`builds statements with ${from}`);
    if (from === "sql-template-tag") uses.push("imports sql-template-tag");
  }
  if (/\b(require|import)\(\s*["']pg["']\s*\)/.test(source)) uses.push("loads pg dynamically");
  for (const match of source.matchAll(/\$(queryRaw|executeRaw)\w*/g)) uses.push(`calls Prisma's ${match[0]}`);
  if (/\.query\s*(<[^>]*>)?\(/.test(source)) uses.push("calls a client's query");
  return [...new Set(uses)];
}

const files = sourceFiles(projectRoot);
const inRule = (file: string) => !EXEMPT.some((prefix) => file.startsWith(prefix));

describe("data access", () => {
  it("recognises raw SQL and ignores type-only imports", () => {
    expect(rawSqlUses(`import pg from "pg";`)).toEqual(["imports pg"]);
    expect(rawSqlUses(`import { getPool, withTransaction } from "../db/pool";`)).toEqual([
      "takes getPool from ../db/pool",
      "takes withTransaction from ../db/pool",
    ]);
    expect(rawSqlUses(`import {\n  closePool,\n  getPool,\n} from "@/lib/db/pool";`)).toEqual([
      "takes getPool from @/lib/db/pool",
    ]);
    expect(rawSqlUses(`import { sql } from "../../db/run-sql";`)).toEqual(["builds statements with ../../db/run-sql"]);
    expect(rawSqlUses(`const pg = await import("pg");`)).toEqual(["loads pg dynamically"]);
    expect(rawSqlUses("await tx.$executeRaw`SELECT 1`;")).toEqual(["calls Prisma's $executeRaw"]);
    expect(rawSqlUses("await client.query<Row>(text);")).toEqual(["calls a client's query"]);
    expect(
      rawSqlUses(
        `import type pg from "pg";\nimport { type PoolClient } from "../db/pool";\nimport { getPrisma } from "../db/prisma";`,
      ),
    ).toEqual([]);
  });

  it("raw SQL runs only in lib/<domain>/sql/", () => {
    const offenders = files
      .filter((file) => inRule(file) && !SQL_MODULE.test(file))
      .flatMap((file) =>
        rawSqlUses(fs.readFileSync(path.join(projectRoot, file), "utf8")).map((use) => `${file} ${use}`),
      );
    expect(offenders, "use Prisma Client (lib/db/prisma.ts), or move the statement to lib/<domain>/sql/").toEqual([]);
  });

  it("sql/ folders sit directly in a domain folder of lib/, and each of their modules runs raw SQL", () => {
    const sqlFiles = files.filter((file) => /(^|\/)sql\//.test(file) && inRule(file));
    expect(sqlFiles.length).toBeGreaterThan(10);
    for (const file of sqlFiles) {
      expect(file, "lib/<domain>/sql/<verb-noun>.ts").toMatch(SQL_MODULE);
      expect(rawSqlUses(fs.readFileSync(path.join(projectRoot, file), "utf8")), file).not.toEqual([]);
    }
  });

  it("no module uses SQL text exported by another: each statement is whole in its module", () => {
    const exported = files
      .filter(inRule)
      .flatMap((file) =>
        [
          ...fs
            .readFileSync(path.join(projectRoot, file), "utf8")
            .matchAll(
              /export\s+(?:const|let)\s+(\w+)\s*(?::[^=]+)?=\s*(?:\w+\()?\s*[`"']\s*(?:SELECT|WITH|INSERT|UPDATE|DELETE)\b/gi,
            ),
        ].map((match) => ({ file, name: match[1] })),
      );
    const users = exported.flatMap(({ file, name }) =>
      files
        .filter((other) => other !== file && inRule(other))
        .filter((other) => new RegExp(`\\b${name}\\b`).test(fs.readFileSync(path.join(projectRoot, other), "utf8")))
        .map((other) => `${other} uses ${name} of ${file}`),
    );
    expect(users).toEqual([]);
  });
});
