// Deposit requests as the bot's /deposits and the dashboard's queue list them.
import { getPrisma } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { nullableNumberFromDb } from "../db/number-from-db";
import { DEPOSIT_FIELDS, toDepositRequest, type DepositRequest, type DepositStatus } from "./deposit-request";

/** The holder's latest requests, newest first. */
export async function listHolderDeposits(accountId: number, limit = 10): Promise<DepositRequest[]> {
  const rows = await getPrisma().depositRequest.findMany({
    where: { accountId },
    orderBy: { id: "desc" },
    take: limit,
    select: DEPOSIT_FIELDS,
  });
  return rows.map(toDepositRequest);
}

export interface DepositFilters {
  status?: DepositStatus;
  accountId?: number;
  /** A reference, or part of one. */
  reference?: string;
}

export interface DepositQueueItem extends DepositRequest {
  accountUsername: string | null;
  accountTelegramId: number | null;
}

const DEPOSIT_PAGE_SIZE = 100;

/** The dashboard's queue: pending first (oldest first, the order to work them), then the rest, newest first. */
export async function listDepositRequests(filters: DepositFilters): Promise<DepositQueueItem[]> {
  const where: Prisma.DepositRequestWhereInput = {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.accountId ? { accountId: filters.accountId } : {}),
    ...(filters.reference ? { reference: { contains: filters.reference.toUpperCase() } } : {}),
  };
  const rows = await getPrisma().depositRequest.findMany({
    where,
    orderBy: filters.status === "pending" ? { id: "asc" } : { id: "desc" },
    take: DEPOSIT_PAGE_SIZE,
    select: { ...DEPOSIT_FIELDS, account: { select: { telegramUsername: true, telegramId: true } } },
  });
  return rows.map(({ account, ...row }) => ({
    ...toDepositRequest(row),
    accountUsername: account.telegramUsername,
    accountTelegramId: nullableNumberFromDb(account.telegramId),
  }));
}

/** A proof's file for the dashboard; undefined when the request has none. */
export async function readDepositProof(
  depositId: number,
): Promise<{ bytes: Uint8Array; mime: string; fileName: string } | undefined> {
  const row = await getPrisma().depositRequest.findUnique({
    where: { id: depositId },
    select: { proofBytes: true, proofMime: true, proofFileName: true },
  });
  if (!row?.proofBytes) return undefined;
  return {
    bytes: row.proofBytes,
    mime: row.proofMime ?? "application/octet-stream",
    fileName: row.proofFileName ?? "proof",
  };
}
