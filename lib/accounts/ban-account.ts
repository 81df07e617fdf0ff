import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { toAccountRecord, type AccountRecord } from "./account-record";
import { lockAccount } from "./sql/lock-account";

/** Bans an account: every API call answers ACCOUNT_BANNED until unbanned. Audited even when already banned. */
export async function banAccount(input: {
  accountId: number;
  actor: string;
  reason?: string | null;
}): Promise<{ status: "banned" | "already_banned"; account: AccountRecord } | { status: "not_found" }> {
  return getPrisma().$transaction(async (tx) => {
    if (!(await lockAccount(tx, input.accountId))) return { status: "not_found" as const };
    const before = await tx.account.findUniqueOrThrow({ where: { id: input.accountId }, select: { bannedAt: true } });
    const alreadyBanned = before.bannedAt !== null;
    const row = await tx.account.update({
      where: { id: input.accountId },
      // The first ban's time stays: it says since when the account has been banned.
      data: { bannedAt: before.bannedAt ?? new Date(), banReason: input.reason ?? null },
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "account.ban",
        targetType: "account",
        targetId: input.accountId,
        details: { reason: input.reason ?? null, alreadyBanned },
      },
      tx,
    );
    return { status: alreadyBanned ? ("already_banned" as const) : ("banned" as const), account: toAccountRecord(row) };
  });
}
