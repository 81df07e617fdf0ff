// One statement text for both kinds of transaction: the hot path's raw pg clients and the Prisma
// transactions of the bot, the dashboard and the seed. Money moves and outbox writes use it so
// there is one text of each, not one per client.
import type pg from "pg";
import type { PrismaTx } from "./prisma";

export type SqlTransaction = PrismaTx | Pick<pg.PoolClient, "query">;

/** A statement text, or a named one: on a pg client a name prepares it once per connection (the worker and the API run these on every order); Prisma sends the text. */
export type SqlStatement = string | { name: string; text: string };

export async function runSql<T>(tx: SqlTransaction, statement: SqlStatement, values: unknown[]): Promise<T[]> {
  const { name, text } = typeof statement === "string" ? { name: undefined, text: statement } : statement;
  if ("query" in tx) return (await tx.query(name ? { name, text, values } : { text, values })).rows as T[];
  return tx.$queryRawUnsafe<T[]>(text, ...values);
}
