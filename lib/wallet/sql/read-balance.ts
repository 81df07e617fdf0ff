import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";

export async function readBalanceCents(accountId: number): Promise<number> {
  const { rows } = await getPool().query<{ balance_cents: number }>(
    prepared("read-balance", sql`SELECT balance_cents FROM accounts WHERE id = ${accountId}`),
  );
  return rows[0]?.balance_cents ?? 0;
}
