import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { lockAccount } from "./sql/lock-account";

/**
 * The holder's own switch for API access (/api on|off). Off makes every API call answer
 * API_DISABLED. An admin block (set-admin-api-block.ts) is a separate flag the holder cannot undo.
 */
export async function setApiAccess(
  accountId: number,
  enabled: boolean,
  actor: string,
): Promise<{ status: "updated" | "unchanged"; apiDisabledByAdmin: boolean } | { status: "not_found" }> {
  return getPrisma().$transaction(async (tx) => {
    if (!(await lockAccount(tx, accountId))) return { status: "not_found" as const };
    const { apiEnabled, apiDisabledByAdmin } = await tx.account.findUniqueOrThrow({
      where: { id: accountId },
      select: { apiEnabled: true, apiDisabledByAdmin: true },
    });
    if (apiEnabled !== enabled) await tx.account.update({ where: { id: accountId }, data: { apiEnabled: enabled } });
    await recordAuditEntry(
      {
        actor,
        action: enabled ? "account.api_on" : "account.api_off",
        targetType: "account",
        targetId: accountId,
        details: { changed: apiEnabled !== enabled },
      },
      tx,
    );
    return { status: apiEnabled !== enabled ? ("updated" as const) : ("unchanged" as const), apiDisabledByAdmin };
  });
}
