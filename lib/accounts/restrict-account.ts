import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { accountColumns, type AccountRecord } from "./account-record";

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
  return withTransaction(async (client) => {
    const lifting = input.minutes === 0;
    const { rows } = await client.query<AccountRecord>(
      `UPDATE accounts
          SET restricted_until = CASE WHEN $2::int = 0 THEN NULL ELSE now() + make_interval(mins => $2::int) END,
              restrict_reason = CASE WHEN $2::int = 0 THEN NULL ELSE $3 END,
              updated_at = now()
        WHERE id = $1 RETURNING ${accountColumns()}`,
      [input.accountId, input.minutes, input.reason ?? null],
    );
    if (rows.length === 0) return { status: "not_found" as const };
    await recordAuditEntry(
      {
        actor: input.actor,
        action: lifting ? "account.unrestrict" : "account.restrict",
        targetType: "account",
        targetId: input.accountId,
        details: { minutes: input.minutes, until: rows[0].restrictedUntil?.toISOString() ?? null, reason: input.reason ?? null },
      },
      client,
    );
    return { status: lifting ? ("lifted" as const) : ("restricted" as const), account: rows[0] };
  });
}
