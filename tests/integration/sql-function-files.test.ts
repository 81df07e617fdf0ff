// The SQL functions live once, in prisma/functions/<name>.sql: no migration carries a definition a
// file also holds (the check `npm run lint:sql` makes, with PostgreSQL's parser), the migrated
// database's functions and triggers are the files', a changed file reaches the database through the
// migrate command, and a database that today's main migrated ends equal to a fresh one once the
// migrate command has run.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { applyMigrations, functionsDir, listFunctionFiles, listMigrations } from "@/lib/db/migrate";
import { snapshotDatabase } from "../helpers/database-snapshot";
import { definedObjects, repeatedDefinitions } from "../../scripts/sql-definitions";
import { suiteDatabaseUrl } from "../helpers/suite";

/** The last commit whose migrations still carried the function bodies. */
const OLD_MAIN = "b81b11e";

const files = listFunctionFiles();
const fileObjects = new Set(files.flatMap((file) => definedObjects(file.sql)));

function git(args: string[]): string | undefined {
  try {
    return execFileSync("git", args, { cwd: projectRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return undefined;
  }
}

/** The migrations as OLD_MAIN had them, or undefined when this checkout lacks that commit. */
function oldMigrations(): { name: string; sql: string }[] | undefined {
  const listing = git(["ls-tree", "--name-only", `${OLD_MAIN}:prisma/migrations`]);
  if (listing === undefined) return undefined;
  return listing
    .split("\n")
    .filter((name) => /^\d{14}_/.test(name))
    .map((name) => ({ name, sql: git(["show", `${OLD_MAIN}:prisma/migrations/${name}/migration.sql`])! }));
}

function skipWithoutOldMain(context: { skip: () => void }): { name: string; sql: string }[] {
  const migrations = oldMigrations();
  if (!migrations) {
    console.warn(
      `SKIPPED: this checkout lacks commit ${OLD_MAIN} (a shallow clone?), whose migrations the test replays`,
    );
    context.skip();
  }
  return migrations!;
}

describe("prisma/functions holds each definition once", () => {
  it("no migration defines a function or trigger that prisma/functions defines", () => {
    expect(repeatedDefinitions(listMigrations(), files)).toEqual([]);
  });

  it("the check finds the definitions that today's main repeated across its migrations", (context) => {
    const found = repeatedDefinitions(skipWithoutOldMain(context), files);
    expect(found.filter((line) => line.endsWith(": function place_order"))).toHaveLength(4);
    expect(found).toContain("20261126080000_supplier_reference: trigger suppliers_never_deleted");
  });

  it("each file defines the function it is named after, and no two files define the same thing", () => {
    const all = files.flatMap((file) => definedObjects(file.sql));
    expect(new Set(all).size).toBe(all.length);
    for (const file of files) expect(definedObjects(file.sql)).toContain(`function ${file.name}`);
  });
});

describe("the migrated database", () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: suiteDatabaseUrl() });
    await client.connect();
  });
  afterAll(() => client.end());

  const definitions = async () =>
    (
      await client.query<{ line: string }>(
        `SELECT pg_get_functiondef(p.oid) AS line FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
         UNION ALL
         SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
          WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal`,
      )
    ).rows
      .map((row) => row.line)
      .sort();

  it("has exactly the files' functions and triggers: applying every file again, bodies checked, changes nothing", async () => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT 'function ' || proname AS name FROM pg_proc WHERE pronamespace = 'public'::regnamespace
       UNION ALL
       SELECT 'trigger ' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal`,
    );
    expect(rows.map((row) => row.name).sort()).toEqual([...fileObjects].sort());

    const before = await definitions();
    await client.query("BEGIN");
    try {
      // The real PostgreSQL parser and validator on every file, against the migrated schema.
      await client.query("SET LOCAL check_function_bodies = on");
      for (const file of files) await client.query(file.sql);
      expect(await definitions()).toEqual(before);
    } finally {
      await client.query("ROLLBACK");
    }
  });
});

describe("upgrading and changing", () => {
  const base = new URL(suiteDatabaseUrl());
  const scratchNames = ["fresh", "old"].map((kind) => `${base.pathname.slice(1)}_fn_${kind}_${process.pid}`);
  const urlOf = (name: string) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();
  const [freshUrl, oldUrl] = scratchNames.map(urlOf) as [string, string];
  let admin: pg.Client;
  let tmp: string;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: base.toString() });
    await admin.connect();
    for (const name of scratchNames) {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${name}"`);
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sql-functions-"));
    await applyMigrations(freshUrl);
  });
  afterAll(async () => {
    for (const name of scratchNames) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it(`a database that ${OLD_MAIN}'s main migrated ends equal to a fresh one after the migrate command`, async (context) => {
    const migrations = skipWithoutOldMain(context);
    // Today's main: its migrations, recorded as it recorded them, and no function files.
    const oldDir = path.join(tmp, "old-migrations");
    const noFunctions = path.join(tmp, "no-functions");
    fs.mkdirSync(noFunctions, { recursive: true });
    for (const migration of migrations) {
      fs.mkdirSync(path.join(oldDir, migration.name), { recursive: true });
      fs.writeFileSync(path.join(oldDir, migration.name, "migration.sql"), migration.sql);
    }
    await applyMigrations(oldUrl, { dir: oldDir, functionsDir: noFunctions });
    const old = new pg.Client({ connectionString: oldUrl });
    await old.connect();
    try {
      await old.query(`DROP TABLE "_sql_functions"`);
      const { rows } = await old.query(`SELECT pronargs FROM pg_proc WHERE proname = 'place_order'`);
      expect(rows).toEqual([{ pronargs: 21 }]);
    } finally {
      await old.end();
    }
    expect(await snapshotDatabase(oldUrl)).not.toEqual(await snapshotDatabase(freshUrl));

    const warnings: string[] = [];
    const applied = await applyMigrations(oldUrl, { log: (line) => line.startsWith("warning") && warnings.push(line) });
    // The migrations added since, then every file.
    const oldNames = new Set(migrations.map((migration) => migration.name));
    const since = listMigrations()
      .map((migration) => migration.name)
      .filter((name) => !oldNames.has(name));
    expect(applied).toEqual([...since, ...files.map((file) => `${file.name}.sql`)]);
    expect(warnings).toEqual([]);
    expect(await snapshotDatabase(oldUrl)).toEqual(await snapshotDatabase(freshUrl));
  });

  it("an edited file reaches the database with the next migrate, once", async () => {
    const edited = path.join(tmp, "edited-functions");
    fs.cpSync(functionsDir, edited, { recursive: true });
    const file = path.join(edited, "pack_price.sql");
    const original = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, original.replace("SELECT greatest(1, CASE", "SELECT greatest(7, CASE"));
    const queryFresh = async (text: string) => {
      const fresh = new pg.Client({ connectionString: freshUrl });
      await fresh.connect();
      try {
        return (await fresh.query(text)).rows[0];
      } finally {
        await fresh.end();
      }
    };
    const price = async () => (await queryFresh(`SELECT pack_price(5, NULL, NULL) AS cents`)).cents;
    expect(await price()).toBe("5");
    expect(await applyMigrations(freshUrl, { functionsDir: edited })).toEqual(["pack_price.sql"]);
    expect(await price()).toBe("7");
    expect(await applyMigrations(freshUrl, { functionsDir: edited })).toEqual([]);
    expect(await applyMigrations(freshUrl)).toEqual(["pack_price.sql"]);
    expect(await price()).toBe("5");

    // A body that names a missing column fails the migrate, and nothing of the run is kept.
    fs.writeFileSync(file, original.replace("SELECT greatest(1, CASE", "SELECT greatest(no_such_column, CASE"));
    fs.writeFileSync(
      path.join(edited, "order_record.sql"),
      fs.readFileSync(path.join(functionsDir, "order_record.sql"), "utf8").replace("o.metadata)", "NULL)"),
    );
    await expect(applyMigrations(freshUrl, { functionsDir: edited })).rejects.toThrow(/no_such_column/);
    expect(await price()).toBe("5");
    const orderRecord = await queryFresh(`SELECT prosrc FROM pg_proc WHERE proname = 'order_record'`);
    expect(orderRecord.prosrc).toContain("o.metadata)");
    expect(await applyMigrations(freshUrl)).toEqual([]);
  });

  it("a file that changes its function's parameters without dropping the old one fails the migrate", async () => {
    const edited = path.join(tmp, "overloading-functions");
    fs.cpSync(functionsDir, edited, { recursive: true });
    const file = path.join(edited, "pack_price.sql");
    fs.writeFileSync(
      file,
      fs
        .readFileSync(file, "utf8")
        .replace("tier_percent_off_bp integer)", "tier_percent_off_bp integer, unused integer)"),
    );
    await expect(applyMigrations(freshUrl, { functionsDir: edited })).rejects.toThrow(
      /pack_price\.sql failed: it leaves two functions named pack_price/,
    );
    const fresh = new pg.Client({ connectionString: freshUrl });
    await fresh.connect();
    try {
      const { rows } = await fresh.query(`SELECT pronargs FROM pg_proc WHERE proname = 'pack_price'`);
      expect(rows).toEqual([{ pronargs: 3 }]);
    } finally {
      await fresh.end();
    }
    expect(await applyMigrations(freshUrl)).toEqual([]);
  });

  it("a new migration is followed by every function file, since it may change what they stand on", async () => {
    const withNew = path.join(tmp, "with-new-migration");
    fs.cpSync(path.join(projectRoot, "prisma", "migrations"), withNew, { recursive: true });
    fs.mkdirSync(path.join(withNew, "99991231000000_new"));
    fs.writeFileSync(path.join(withNew, "99991231000000_new", "migration.sql"), "SELECT 1;\n");
    expect(await applyMigrations(freshUrl, { dir: withNew })).toEqual([
      "99991231000000_new",
      ...files.map((file) => `${file.name}.sql`),
    ]);
  });
});
