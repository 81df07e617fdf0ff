// One statement text for both kinds of transaction: the hot path's raw pg clients and the Prisma
// transactions of the bot, the dashboard and the seed. Money moves and outbox writes use it so
// there is one text of each, not one per client.
import type pg from "pg";
import type { PrismaTx } from "./prisma";

export type SqlTransaction = PrismaTx | Pick<pg.PoolClient, "query">;

export async function runSql<T>(tx: SqlTransaction, text: string, values: unknown[]): Promise<T[]> {
  if ("query" in tx) return (await tx.query(text, values)).rows as T[];
  return tx.$queryRawUnsafe<T[]>(text, ...values);
}
