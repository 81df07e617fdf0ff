import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

/**
 * Sets (or with null removes) the daily spending limit of one of the account's own keys, found by
 * its shown prefix and scoped to the account. place_order counts each UTC day's charges against it;
 * a change takes effect on the key's next order, and what the key spent today still counts.
 */
export async function setKeySpendingLimit(
  accountId: number,
  prefix: string,
  dailyLimitCents: number | null,
  actor: string,
): Promise<{ status: "set"; prefix: string } | { status: "not_found" }> {
  return getPrisma().$transaction(async (tx) => {
    const [key] = await tx.apiKey.updateManyAndReturn({
      where: { accountId, prefix, revokedAt: null },
      data: { dailyLimitCents: dailyLimitCents === null ? null : BigInt(dailyLimitCents) },
      select: { id: true, prefix: true },
    });
    if (!key) return { status: "not_found" as const };
    await recordAuditEntry(
      {
        actor,
        action: "api_key.spending_limit",
        targetType: "api_key",
        targetId: key.id,
        details: { accountId, prefix, dailyLimitCents },
      },
      tx,
    );
    return { status: "set" as const, prefix: key.prefix };
  });
}
