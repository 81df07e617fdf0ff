import { getPrisma } from "../db/prisma";
import { postLedgerEntry, type PostedEntry } from "./sql/post-ledger-entry";

/** Adds money to a wallet in its own transaction (the demo seed, the test fixtures, the benchmark). */
export async function creditWallet(input: {
  accountId: number;
  amountCents: number;
  actor: string;
  reason?: string;
  auditLogId?: number;
}): Promise<PostedEntry> {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0) {
    throw new Error("a credit must be a positive integer number of cents");
  }
  return getPrisma().$transaction((tx) => postLedgerEntry(tx, { ...input, kind: "credit" }));
}
