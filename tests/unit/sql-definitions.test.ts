// What `npm run lint:sql` reads with PostgreSQL's parser: the functions and triggers a SQL text
// defines, and the function files' bodies, which a broken one fails however it is written.
import { describe, expect, it } from "vitest";
import { listFunctionFiles } from "@/lib/db/migrate";
import { definedObjects, functionFileProblem, repeatedDefinitions } from "../../scripts/sql-definitions";

const PLPGSQL = `CREATE OR REPLACE FUNCTION add_one(n integer) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  RETURN n + 1;
END;
$$;`;
const SQL_BODY = `CREATE FUNCTION twice(n integer) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT n * 2
$$;`;

describe("the SQL lint", () => {
  it("parses every file of prisma/functions, bodies included", () => {
    const files = listFunctionFiles();
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((file) => functionFileProblem(file.sql) !== undefined).map((file) => file.name)).toEqual([]);
  });

  it("names what is wrong in a statement, a PL/pgSQL body and a SQL body", () => {
    expect(functionFileProblem(`${PLPGSQL}\n${SQL_BODY}`)).toBeUndefined();
    expect(functionFileProblem(PLPGSQL.replace("CREATE OR REPLACE", "CREATE OR"))).toMatch(/syntax error/);
    expect(functionFileProblem(PLPGSQL.replace("RETURN n + 1;", "IF n > 0 THEN RETURN n;"))).toMatch(/syntax error/);
    expect(functionFileProblem(PLPGSQL.replace("RETURN n + 1;", "SELEC n;"))).toMatch(
      /syntax error at or near "SELEC"/,
    );
    expect(functionFileProblem(`${PLPGSQL}\n${SQL_BODY.replace("SELECT n * 2", "SELECT n * FROM")}`)).toMatch(
      /^line 7: syntax error at or near "FROM"/,
    );
  });

  it("finds functions and triggers however they are spelled, but not pg_temp helpers or text in comments", () => {
    const migration = `-- CREATE FUNCTION commented_out() ...
      CREATE OR REPLACE FUNCTION public."twice"(n integer) RETURNS integer LANGUAGE sql AS 'SELECT n * 2';
      create function pg_temp.backfill() returns void language sql as $$ SELECT 1 $$;
      CREATE CONSTRAINT TRIGGER "checked" AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION twice();`;
    expect(definedObjects(migration)).toEqual(["function twice", "trigger checked"]);
    expect(
      repeatedDefinitions([{ name: "20990101000000_m", sql: migration }], [{ name: "twice", sql: SQL_BODY }]),
    ).toEqual(["20990101000000_m: function twice"]);
  });
});
