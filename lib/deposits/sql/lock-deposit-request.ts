import type { PrismaTx } from "../../db/prisma";

/**
 * Locks a deposit request's row until the transaction ends and says whether it exists: of two
 * admins deciding it at once (bot, dashboard, a statement import), the second waits here and then
 * reads the first one's decision. Raw SQL because Prisma has no SELECT ... FOR UPDATE.
 */
export async function lockDepositRequest(tx: PrismaTx, depositId: number): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM deposit_requests WHERE id = ${depositId} FOR UPDATE`;
  return rows.length > 0;
}
