// /deposit <usd>: opens a request for a transfer of a unique amount (a few cents added to what the
// holder asked, so a bank statement row names one request) valid for the owner-set time.
import crypto from "node:crypto";
import { getPrisma } from "../db/prisma";
import { lockAccount } from "../accounts/sql/lock-account";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { MAX_ADJUSTMENT_CENTS } from "../money/parse-usd";
import { readDepositSettings, type DepositMethod } from "./deposit-settings";
import { DEPOSIT_FIELDS, toDepositRequest, type DepositRequest } from "./deposit-request";
import { insertDepositRequest, lockRequestedAmount } from "./sql/insert-deposit-request";

/** Open requests a holder may have at once: each holds an amount others cannot take. */
export const MAX_OPEN_DEPOSITS = 3;
/** The largest deposit request; the cents added keep it within what an admin may credit. */
export const MAX_DEPOSIT_CENTS = MAX_ADJUSTMENT_CENTS - 100;
const TRIES = 5;

export type OpenDepositResult =
  | { status: "opened"; deposit: DepositRequest; methods: DepositMethod[] }
  | { status: "not_set_up" }
  | { status: "too_many_open"; open: number }
  /** Every amount from +1 to +99 cents is taken by another open request: another amount will do. */
  | { status: "no_free_amount" };

/** "DEP-" and 8 characters without look-alikes: easy to type into a transfer's description. */
function newReference(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = crypto.randomBytes(8);
  return `DEP-${[...bytes].map((byte) => alphabet[byte % alphabet.length]).join("")}`;
}

export async function openDepositRequest(input: {
  accountId: number;
  requestedCents: number;
  actor: string;
}): Promise<OpenDepositResult> {
  if (
    !Number.isSafeInteger(input.requestedCents) ||
    input.requestedCents <= 0 ||
    input.requestedCents > MAX_DEPOSIT_CENTS
  )
    throw new RangeError(`a deposit must be a positive integer number of cents up to ${MAX_DEPOSIT_CENTS}`);
  return getPrisma().$transaction(async (tx) => {
    const settings = await readDepositSettings(tx);
    if (settings.methods.length === 0) return { status: "not_set_up" as const };
    // The holder's requests one at a time, so two at once cannot both pass the cap.
    await lockAccount(tx, input.accountId);
    const open = await tx.depositRequest.count({ where: { accountId: input.accountId, status: "pending" } });
    if (open >= MAX_OPEN_DEPOSITS) return { status: "too_many_open" as const, open };
    await lockRequestedAmount(tx, input.requestedCents);
    let id: number | undefined;
    for (let attempt = 0; attempt < TRIES && id === undefined; attempt++)
      id = await insertDepositRequest(tx, {
        ...input,
        reference: newReference(),
        validityMinutes: settings.validityMinutes,
      });
    if (id === undefined) return { status: "no_free_amount" as const };
    const deposit = toDepositRequest(
      await tx.depositRequest.findUniqueOrThrow({ where: { id }, select: DEPOSIT_FIELDS }),
    );
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "deposit.requested",
        targetType: "deposit",
        targetId: deposit.id,
        details: {
          reference: deposit.reference,
          accountId: deposit.accountId,
          requestedCents: deposit.requestedCents,
          amountCents: deposit.amountCents,
          expiresAt: deposit.expiresAt.toISOString(),
        },
      },
      tx,
    );
    return { status: "opened" as const, deposit, methods: settings.methods };
  });
}
