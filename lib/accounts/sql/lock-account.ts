import type { PrismaTx } from "../../db/prisma";

/**
 * Locks the account's row until the transaction ends and says whether it exists. Changes that read
 * before they write (key limits, allowlist limits, "was it already banned?") take it first, so two
 * concurrent commands for one account run one after the other. Raw SQL because Prisma has no
 * SELECT ... FOR UPDATE.
 */
export async function lockAccount(tx: PrismaTx, accountId: number): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  return rows.length > 0;
}
