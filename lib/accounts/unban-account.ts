import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { toAccountRecord, type AccountRecord } from "./account-record";
import { lockAccount } from "./sql/lock-account";

/** Lifts a ban. Audited even when the account was not banned, so every admin action leaves a trace. */
export async function unbanAccount(input: {
  accountId: number;
  actor: string;
}): Promise<{ status: "unbanned" | "not_banned"; account: AccountRecord } | { status: "not_found" }> {
  return getPrisma().$transaction(async (tx) => {
    if (!(await lockAccount(tx, input.accountId))) return { status: "not_found" as const };
    const before = await tx.account.findUniqueOrThrow({ where: { id: input.accountId }, select: { bannedAt: true } });
    const wasBanned = before.bannedAt !== null;
    const row = await tx.account.update({ where: { id: input.accountId }, data: { bannedAt: null, banReason: null } });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "account.unban",
        targetType: "account",
        targetId: input.accountId,
        details: { wasBanned },
      },
      tx,
    );
    return { status: wasBanned ? ("unbanned" as const) : ("not_banned" as const), account: toAccountRecord(row) };
  });
}
