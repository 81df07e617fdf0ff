// Statements are tagged templates (sql-template-tag): every value sits where it is used, so no
// parameter is numbered by hand. One statement runs on both kinds of transaction: the hot path's
// pg clients and the Prisma transactions of the bot, the dashboard and the seed.
import type pg from "pg";
import type { Sql } from "sql-template-tag";
import type { PrismaTx } from "./prisma";

export { default as sql } from "sql-template-tag";

export type SqlTransaction = PrismaTx | Pick<pg.PoolClient, "query">;

/** A statement pg prepares once per connection under `name` (for the statements the API runs on every request). */
export function prepared(name: string, statement: Sql): pg.QueryConfig {
  return { name, text: statement.text, values: statement.values };
}

/** Runs one whole statement (built where it is used) on either kind of transaction; it builds no SQL itself. */
export async function runSql<T>(tx: SqlTransaction, statement: Sql, name?: string): Promise<T[]> {
  if ("query" in tx) {
    const config = name ? prepared(name, statement) : { text: statement.text, values: statement.values };
    return (await tx.query(config)).rows as T[];
  }
  return tx.$queryRawUnsafe<T[]>(statement.text, ...statement.values);
}
