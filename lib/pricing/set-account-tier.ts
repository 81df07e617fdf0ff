import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { toAccountRecord, type AccountRecord } from "../accounts/account-record";
import { lockAccount } from "../accounts/sql/lock-account";
import { NO_TIER } from "./price-tier-rules";
import { holdPriceTierByName } from "./sql/lock-price-tier";

export type SetAccountTierResult =
  | {
      status: "updated" | "unchanged";
      account: AccountRecord;
      /** Null: list prices. */
      tier: string | null;
      previous: string | null;
    }
  | { status: "not_found" }
  /** A test account pays its holder's tier: set the holder's. */
  | { status: "test_account"; holderId: number }
  | { status: "no_such_tier"; tier: string };

/**
 * Puts an account on a price tier by name, or on list prices with null (or "none"): the bot's
 * /tier and the dashboard's account page both come here. New orders only: orders already placed
 * keep the amount they were charged, and so do their replays. Audited in the same transaction.
 */
export async function setAccountTier(input: {
  accountId: number;
  tierName: string | null;
  actor: string;
}): Promise<SetAccountTierResult> {
  const wanted = input.tierName?.trim().toLowerCase() || NO_TIER;
  return getPrisma().$transaction(async (tx) => {
    // The tier first, then the account, as a removal takes them (removePriceTier): the two cannot
    // deadlock. Held, the tier cannot be removed before this commits.
    const tier = wanted === NO_TIER ? null : await holdPriceTierByName(tx, wanted);
    if (wanted !== NO_TIER && !tier) return { status: "no_such_tier" as const, tier: wanted };
    // Two changes at once run one after the other, so each audit entry names what it replaced.
    if (!(await lockAccount(tx, input.accountId))) return { status: "not_found" as const };
    const before = await tx.account.findUniqueOrThrow({
      where: { id: input.accountId },
      include: { priceTier: { select: { name: true } } },
    });
    if (before.liveAccountId !== null) return { status: "test_account" as const, holderId: before.liveAccountId };
    const previous = before.priceTier?.name ?? null;
    const changed = before.priceTierId !== (tier?.id ?? null);
    const row = changed
      ? await tx.account.update({ where: { id: input.accountId }, data: { priceTierId: tier?.id ?? null } })
      : before;
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "account.price_tier",
        targetType: "account",
        targetId: input.accountId,
        details: { from: previous, to: tier?.name ?? null, changed },
      },
      tx,
    );
    return {
      status: changed ? ("updated" as const) : ("unchanged" as const),
      account: toAccountRecord(row),
      tier: tier?.name ?? null,
      previous,
    };
  });
}
