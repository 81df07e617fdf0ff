// Acceptance: outside the raw-SQL modules docs/data-layer.md names (its "Where SQL is raw, and
// why" list, read from between its markers), no module uses pg directly. A module does when it
// imports the pg package for its values or takes getPool/withTransaction from lib/db/pool; a
// type-only import cannot run a query. tests/, bench/, scripts/ and lib/db/ itself are outside the
// rule, as is Prisma's generated client.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";

const EXEMPT = ["tests/", "bench/", "scripts/", "lib/db/", "lib/generated/"];
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".next", ".git", ".data", "test-results", "playwright-report"]);

function readRawSqlList(readme: string): string[] {
  const start = readme.indexOf("<!-- raw-sql-modules:start -->");
  const end = readme.indexOf("<!-- raw-sql-modules:end -->");
  if (start < 0 || end < start) throw new Error("docs/data-layer.md has no raw-sql-modules markers");
  return [...readme.slice(start, end).matchAll(/`((?:lib|app|bot|components)\/[^`\s]+)`/g)].map((match) => match[1]!);
}

function sourceFiles(directory: string, relative = ""): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const rel = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory())
      return SKIPPED_DIRECTORIES.has(entry.name) ? [] : sourceFiles(path.join(directory, entry.name), rel);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [rel] : [];
  });
}

/** How `source` uses pg directly, if it does. */
function directPgUses(source: string): string[] {
  const uses: string[] = [];
  for (const match of source.matchAll(/import\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/g)) {
    const [, typeOnly, clause = "", from = ""] = match;
    if (typeOnly) continue;
    if (from === "pg" || from.startsWith("pg/")) uses.push(`imports ${from}`);
    if (/(^|\/)db\/pool$/.test(from)) {
      const names = clause
        .replace(/[{}]/g, "")
        .split(",")
        .map((name) => name.trim())
        .filter((name) => !name.startsWith("type "));
      for (const name of names)
        if (/^(getPool|withTransaction)\b/.test(name)) uses.push(`takes ${name.split(/\s/)[0]} from ${from}`);
      if (clause.includes("*")) uses.push(`imports all of ${from}`);
    }
  }
  if (/\b(require|import)\(\s*["']pg["']\s*\)/.test(source)) uses.push("loads pg dynamically");
  return uses;
}

const readme = fs.readFileSync(path.join(projectRoot, "docs/data-layer.md"), "utf8");
const allowed = readRawSqlList(readme);
const covered = (file: string) =>
  allowed.some((entry) => (entry.endsWith("/") ? file.startsWith(entry) : file === entry));

describe("data access", () => {
  it("the raw-SQL list of docs/data-layer.md names modules that exist", () => {
    expect(allowed.length).toBeGreaterThan(5);
    for (const entry of allowed) expect(fs.existsSync(path.join(projectRoot, entry)), entry).toBe(true);
  });

  it("recognises direct pg use and ignores type-only imports", () => {
    expect(directPgUses(`import pg from "pg";`)).toEqual(["imports pg"]);
    expect(directPgUses(`import { getPool, withTransaction } from "../db/pool";`)).toEqual([
      "takes getPool from ../db/pool",
      "takes withTransaction from ../db/pool",
    ]);
    expect(directPgUses(`import {\n  closePool,\n  getPool,\n} from "@/lib/db/pool";`)).toEqual([
      "takes getPool from @/lib/db/pool",
    ]);
    expect(directPgUses(`const pg = await import("pg");`)).toEqual(["loads pg dynamically"]);
    expect(
      directPgUses(
        `import type pg from "pg";\nimport { type PoolClient } from "../db/pool";\nimport { getPrisma } from "../db/prisma";`,
      ),
    ).toEqual([]);
  });

  it("no module outside that list uses pg directly", () => {
    const offenders = sourceFiles(projectRoot)
      .filter((file) => !EXEMPT.some((prefix) => file.startsWith(prefix)) && !covered(file))
      .flatMap((file) =>
        directPgUses(fs.readFileSync(path.join(projectRoot, file), "utf8")).map((use) => `${file} ${use}`),
      );
    expect(
      offenders,
      "use Prisma Client (lib/db/prisma.ts), or add the module to the raw-SQL list of docs/data-layer.md with the reason",
    ).toEqual([]);
  });
});
