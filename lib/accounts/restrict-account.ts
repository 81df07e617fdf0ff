import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { toAccountRecord, type AccountRecord } from "./account-record";

/** The longest restriction one command sets: 30 days. Longer is what /ban is for. */
export const MAX_RESTRICT_MINUTES = 30 * 24 * 60;

/**
 * Restricts an account for `minutes` from now (API calls answer ACCOUNT_RESTRICTED until then);
 * 0 lifts a restriction. A new restriction replaces the previous end time rather than extending it,
 * so the admin always knows exactly when it ends.
 */
export async function restrictAccount(input: {
  accountId: number;
  minutes: number;
  actor: string;
  reason?: string | null;
}): Promise<{ status: "restricted" | "lifted"; account: AccountRecord } | { status: "not_found" }> {
  if (!Number.isSafeInteger(input.minutes) || input.minutes < 0 || input.minutes > MAX_RESTRICT_MINUTES) {
    throw new RangeError(`restriction minutes must be an integer from 0 to ${MAX_RESTRICT_MINUTES}`);
  }
  const lifting = input.minutes === 0;
  return getPrisma().$transaction(async (tx) => {
    const [row] = await tx.account.updateManyAndReturn({
      where: { id: input.accountId },
      data: lifting
        ? { restrictedUntil: null, restrictReason: null }
        : { restrictedUntil: new Date(Date.now() + input.minutes * 60_000), restrictReason: input.reason ?? null },
    });
    if (!row) return { status: "not_found" as const };
    await recordAuditEntry(
      {
        actor: input.actor,
        action: lifting ? "account.unrestrict" : "account.restrict",
        targetType: "account",
        targetId: input.accountId,
        details: {
          minutes: input.minutes,
          until: row.restrictedUntil?.toISOString() ?? null,
          reason: input.reason ?? null,
        },
      },
      tx,
    );
    return { status: lifting ? ("lifted" as const) : ("restricted" as const), account: toAccountRecord(row) };
  });
}
