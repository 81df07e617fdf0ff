import { getPool } from "../../db/pool";

export async function readBalanceCents(accountId: number): Promise<number> {
  const { rows } = await getPool().query<{ balance_cents: number }>({
    name: "read-balance",
    text: `SELECT balance_cents FROM accounts WHERE id = $1`,
    values: [accountId],
  });
  return rows[0]?.balance_cents ?? 0;
}
