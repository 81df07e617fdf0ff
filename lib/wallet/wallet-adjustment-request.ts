// A pending admin money action (admin_action_requests): created by /credit or /debit, resolved
// once by Confirm or Cancel (or, for a large credit, by another admin's Approve or Reject). Shared by
// the request, confirm and cancel functions.
import type { AdminActionRequest, AdminRequestStatus } from "../generated/prisma/client";
import { numberFromDb } from "../db/number-from-db";

export type AdjustmentKind = "credit" | "debit";
type AdjustmentStatus = AdminRequestStatus;

/** How long Confirm stays valid: a stale button pressed days later must not move money. */
export const ADJUSTMENT_TTL_MINUTES = 15;
/** How long a large credit waits for a second admin's approval (another person may be asleep). */
export const APPROVAL_TTL_HOURS = 24;

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
  /** The @username the account was named by in the command, or null when named by id. */
  accountUsername: string | null;
  status: AdjustmentStatus;
  createdAt: Date;
  resolvedAt: Date | null;
  /** The admin user who asked; null for requests made before admins were linked. */
  requestedByAdminId: number | null;
  /** A large credit: another admin approves it (Approve / Reject); its requester cannot. */
  needsApproval: boolean;
  /** Who confirmed, approved, cancelled or rejected it. */
  resolvedBy: string | null;
}

export function toWalletAdjustmentRequest(row: AdminActionRequest): WalletAdjustmentRequest {
  if (row.action !== "credit" && row.action !== "debit")
    throw new Error(`admin action request ${row.id} is a "${row.action}", not a wallet adjustment`);
  return {
    id: row.id,
    token: row.token,
    adminTelegramId: numberFromDb(row.adminTelegramId),
    kind: row.action,
    accountId: row.accountId,
    amountCents: numberFromDb(row.amountCents),
    note: row.note,
    accountUsername: row.accountUsername,
    status: row.status,
    createdAt: row.createdAt,
    resolvedAt: row.resolvedAt,
    requestedByAdminId: row.requestedByAdminId,
    needsApproval: row.needsApproval,
    resolvedBy: row.resolvedBy,
  };
}
