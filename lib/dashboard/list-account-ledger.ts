// An account's wallet statement for the dashboard: newest first, paged by entry id. Each entry
// carries the balance right after it (written in the same transaction as the entry): that is the
// running balance. Each line is also checked against the entry before it, so a gap would show.
import { getPrisma } from "../db/prisma";
import type { LedgerKind } from "../generated/prisma/enums";

export interface AccountLedgerLine {
  id: number;
  kind: LedgerKind;
  amountCents: number;
  balanceAfterCents: number;
  /** The previous entry's balance (0 before the first) plus this amount equals this balance. */
  continuous: boolean;
  orderId: number | null;
  orderPublicId: string | null;
  /** On the debit of a completed order: what fulfilling it cost; null otherwise. */
  orderCostCents: number | null;
  actor: string;
  reason: string | null;
  createdAt: Date;
}

export async function listAccountLedger(
  accountId: number,
  options: { olderThan?: number; limit?: number } = {},
): Promise<{ entries: AccountLedgerLine[]; olderCursor?: number }> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  // One row beyond the page: it says whether an older page exists, and it is the entry before the
  // page's oldest line, needed to check that line's continuity.
  const found = await getPrisma().ledgerEntry.findMany({
    select: {
      id: true,
      kind: true,
      amountCents: true,
      balanceAfterCents: true,
      orderId: true,
      order: { select: { publicId: true, status: true, costCents: true } },
      actor: true,
      reason: true,
      createdAt: true,
    },
    where: { accountId, id: { lt: options.olderThan ?? 2_147_483_647 } },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const rows = found.map(({ order, amountCents, balanceAfterCents, ...row }) => ({
    ...row,
    amountCents: Number(amountCents),
    balanceAfterCents: Number(balanceAfterCents),
    orderPublicId: order?.publicId ?? null,
    orderCostCents:
      row.kind === "debit" && order?.status === "completed" && order.costCents !== null
        ? Number(order.costCents)
        : null,
  }));
  const entries = rows.slice(0, limit).map((row, index) => {
    const previousBalance = rows[index + 1]?.balanceAfterCents ?? 0;
    return { ...row, continuous: previousBalance + row.amountCents === row.balanceAfterCents };
  });
  return { entries, olderCursor: rows.length > limit ? entries.at(-1)?.id : undefined };
}
