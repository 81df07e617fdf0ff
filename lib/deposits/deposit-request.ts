// A deposit request (deposit_requests) as the bot, the dashboard and the worker read it.
import type { DepositRequest as DepositRow, DepositStatus } from "../generated/prisma/client";
import { numberFromDb } from "../db/number-from-db";

export type { DepositStatus };
export const DEPOSIT_STATUSES: readonly DepositStatus[] = ["pending", "approved", "rejected", "expired"];

/** A proof's file is kept in the database for the dashboard: at most this many bytes. */
export const MAX_PROOF_BYTES = 5_000_000;
export const MAX_PROOF_TEXT_LENGTH = 1_000;
export const MAX_REJECT_REASON_LENGTH = 300;

export interface DepositRequest {
  id: number;
  reference: string;
  accountId: number;
  requestedCents: number;
  /** The transfer expected, to the cent (unique among open requests); what approval credits. */
  amountCents: number;
  status: DepositStatus;
  createdAt: Date;
  expiresAt: Date;
  proofKind: "photo" | "document" | "text" | null;
  proofText: string | null;
  proofFileName: string | null;
  proofMime: string | null;
  proofAt: Date | null;
  firstApprovedBy: string | null;
  firstApproverAdminId: number | null;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  rejectReason: string | null;
  ledgerEntryId: number | null;
  statementRow: string | null;
}

/** The columns every reader selects: all but the proof's bytes. */
export const DEPOSIT_FIELDS = {
  id: true,
  reference: true,
  accountId: true,
  requestedCents: true,
  amountCents: true,
  status: true,
  createdAt: true,
  expiresAt: true,
  proofKind: true,
  proofText: true,
  proofFileName: true,
  proofMime: true,
  proofAt: true,
  firstApprovedBy: true,
  firstApproverAdminId: true,
  resolvedAt: true,
  resolvedBy: true,
  rejectReason: true,
  ledgerEntryId: true,
  statementRow: true,
} as const;

export function toDepositRequest(row: Omit<DepositRow, "proofBytes">): DepositRequest {
  return {
    ...row,
    requestedCents: numberFromDb(row.requestedCents),
    amountCents: numberFromDb(row.amountCents),
    proofKind: row.proofKind as DepositRequest["proofKind"],
  };
}
