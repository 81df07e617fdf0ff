import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { toAccountRecord, type AccountRecord } from "./account-record";
import { lockAccount } from "./sql/lock-account";

/**
 * An admin's block of API access (/block, /unblock): API calls answer API_DISABLED_BY_ADMIN while
 * it is set, whatever the holder's own /api switch says.
 */
export async function setAdminApiBlock(input: {
  accountId: number;
  blocked: boolean;
  actor: string;
}): Promise<{ status: "updated" | "unchanged"; account: AccountRecord } | { status: "not_found" }> {
  return getPrisma().$transaction(async (tx) => {
    if (!(await lockAccount(tx, input.accountId))) return { status: "not_found" as const };
    const before = await tx.account.findUniqueOrThrow({ where: { id: input.accountId } });
    const changed = before.apiDisabledByAdmin !== input.blocked;
    // Unchanged: no write, so updated_at keeps saying when the account last changed.
    const row = changed
      ? await tx.account.update({ where: { id: input.accountId }, data: { apiDisabledByAdmin: input.blocked } })
      : before;
    await recordAuditEntry(
      {
        actor: input.actor,
        action: input.blocked ? "account.api_block" : "account.api_unblock",
        targetType: "account",
        targetId: input.accountId,
        details: { changed },
      },
      tx,
    );
    return { status: changed ? ("updated" as const) : ("unchanged" as const), account: toAccountRecord(row) };
  });
}
