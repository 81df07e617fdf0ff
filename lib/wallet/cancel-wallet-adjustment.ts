import { getPool, withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { REQUEST_COLUMNS, type WalletAdjustmentRequest } from "./wallet-adjustment-request";

export type CancelAdjustmentResult =
  | { status: "cancelled"; request: WalletAdjustmentRequest }
  | { status: "not_found" }
  | { status: "not_yours"; request: WalletAdjustmentRequest }
  | { status: "already_resolved"; request: WalletAdjustmentRequest };

/** Cancels a pending credit or debit; after this its Confirm button moves no money. */
export async function cancelWalletAdjustment(input: {
  token: string;
  adminTelegramId: number;
  actor: string;
}): Promise<CancelAdjustmentResult> {
  const cancelled = await withTransaction(async (client) => {
    const { rows } = await client.query<WalletAdjustmentRequest>(
      `UPDATE admin_action_requests SET status = 'cancelled', resolved_at = now()
        WHERE token = $1 AND status = 'pending' AND admin_telegram_id = $2 RETURNING ${REQUEST_COLUMNS}`,
      [input.token, input.adminTelegramId],
    );
    if (!rows[0]) return undefined;
    await recordAuditEntry(
      {
        actor: input.actor,
        action: `wallet.${rows[0].kind}_cancelled`,
        targetType: "account",
        targetId: rows[0].accountId,
        details: { requestId: rows[0].id, amountCents: rows[0].amountCents },
      },
      client,
    );
    return rows[0];
  });
  if (cancelled) return { status: "cancelled", request: cancelled };
  const { rows } = await getPool().query<WalletAdjustmentRequest>(`SELECT ${REQUEST_COLUMNS} FROM admin_action_requests WHERE token = $1`, [
    input.token,
  ]);
  if (!rows[0]) return { status: "not_found" };
  if (rows[0].adminTelegramId !== input.adminTelegramId) return { status: "not_yours", request: rows[0] };
  return { status: "already_resolved", request: rows[0] };
}
