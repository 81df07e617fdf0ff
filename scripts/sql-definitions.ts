// SQL read by PostgreSQL's own parser (libpg-query: the server's parser built to WASM), with no
// database: what a SQL text defines, and whether a function file parses whole, its PL/pgSQL and SQL
// bodies included. Shared by `npm run lint:sql` and tests/integration/sql-function-files.test.ts.
import { hasSqlDetails, loadModule, parsePlPgSQLSync, parseSync, type Node } from "libpg-query";

await loadModule();

interface SqlFile {
  name: string;
  sql: string;
}

const textOf = (node: Node | undefined): string | undefined =>
  node && "String" in node ? node.String.sval : undefined;

/** The options of CREATE FUNCTION by name (`language`, `as`, ...). */
function optionsOf(options: Node[] = []): Map<string, Node | undefined> {
  return new Map(
    options.flatMap((option) => ("DefElem" in option ? [[option.DefElem.defname ?? "", option.DefElem.arg]] : [])),
  );
}

/**
 * The functions and triggers a SQL text creates, as "function <name>" and "trigger <name>" (a
 * public. prefix left out; pg_temp helpers, which a migration may use, left out). Throws when the
 * text does not parse.
 */
export function definedObjects(sqlText: string): string[] {
  const names: string[] = [];
  for (const { stmt } of parseSync(sqlText).stmts ?? []) {
    if (stmt && "CreateFunctionStmt" in stmt) {
      const parts = (stmt.CreateFunctionStmt.funcname ?? []).map(textOf);
      if (parts.length === 2 && parts[0] === "pg_temp") continue;
      names.push(`function ${parts.filter((part) => part !== "public").join(".")}`);
    }
    if (stmt && "CreateTrigStmt" in stmt) names.push(`trigger ${stmt.CreateTrigStmt.trigname}`);
  }
  return names;
}

/** "<migration>: <object>" for each function or trigger a migration defines that a file also defines. */
export function repeatedDefinitions(migrations: SqlFile[], files: SqlFile[]): string[] {
  const fileObjects = new Set(files.flatMap((file) => definedObjects(file.sql)));
  return migrations.flatMap((migration) =>
    definedObjects(migration.sql)
      .filter((object) => fileObjects.has(object))
      .map((object) => `${migration.name}: ${object}`),
  );
}

/**
 * Why a function file does not parse, or undefined when it does: the statements, every PL/pgSQL
 * body (its embedded SQL too) and every LANGUAGE sql body given as a string, which PostgreSQL
 * itself parses only when the function is created with body checks on.
 */
export function functionFileProblem(sqlText: string): string | undefined {
  /** The parser's message, with the file's line when it names a position (`offset`: where the text parsed starts). */
  const failure = (error: unknown, offset: number) => {
    const position = hasSqlDetails(error) ? error.sqlDetails?.cursorPosition : undefined;
    if (position === undefined) return (error as Error).message;
    return `line ${sqlText.slice(0, offset + position).split("\n").length}: ${(error as Error).message}`;
  };
  let stmts;
  try {
    stmts = parseSync(sqlText).stmts ?? [];
    parsePlPgSQLSync(sqlText);
  } catch (error) {
    return failure(error, 0);
  }
  for (const { stmt } of stmts) {
    if (!stmt || !("CreateFunctionStmt" in stmt)) continue;
    const options = optionsOf(stmt.CreateFunctionStmt.options);
    const body = options.get("as");
    const source = body && "List" in body ? textOf(body.List.items?.[0]) : undefined;
    if (textOf(options.get("language"))?.toLowerCase() !== "sql" || source === undefined) continue;
    try {
      parseSync(source);
    } catch (error) {
      return failure(error, sqlText.indexOf(source));
    }
  }
  return undefined;
}
