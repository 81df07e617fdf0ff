// A pending admin money action (admin_action_requests): created by /credit or /debit, resolved
// once by Confirm or Cancel. Shared by the request, confirm and cancel functions.

export type AdjustmentKind = "credit" | "debit";
export type AdjustmentStatus = "pending" | "confirmed" | "cancelled" | "expired";

/** How long Confirm stays valid: a stale button pressed days later must not move money. */
export const ADJUSTMENT_TTL_MINUTES = 15;

export interface WalletAdjustmentRequest {
  id: number;
  /** Random, unguessable; carried in the Confirm / Cancel buttons. */
  token: string;
  adminTelegramId: number;
  kind: AdjustmentKind;
  accountId: number;
  /** Always positive; the kind says which way the money moves. */
  amountCents: number;
  note: string | null;
  status: AdjustmentStatus;
  createdAt: Date;
  resolvedAt: Date | null;
}

export const REQUEST_COLUMNS = `id, token, admin_telegram_id AS "adminTelegramId", action AS kind, account_id AS "accountId",
  amount_cents AS "amountCents", note, status, created_at AS "createdAt", resolved_at AS "resolvedAt"`;
