// The test wallet of test mode (README: Test mode): play money on the holder's test account, which
// test keys act on. The holder funds it in the bot (/testcredit, capped per day) and empties it
// (/testreset); both post ledger entries like any other move, so the test balance equals the sum
// of its ledger too. Live money never moves here.
import { getPrisma, type PrismaTx } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { lockAccount } from "../accounts/sql/lock-account";
import { postLedgerEntry } from "./sql/post-ledger-entry";

/** Play money a holder may add to a test wallet per UTC day: $10,000. */
export const TEST_CREDIT_DAILY_CAP_CENTS = 1_000_000;

/** The holder's test account, made on first use; undefined when the holder does not exist. */
export async function openTestAccount(tx: PrismaTx, holderId: number): Promise<number | undefined> {
  // Two first uses at once make one test account: the second waits here, then finds it.
  if (!(await lockAccount(tx, holderId))) return undefined;
  const holder = await tx.account.findUnique({ where: { id: holderId }, select: { liveAccountId: true } });
  if (!holder || holder.liveAccountId !== null) return undefined;
  const test = await tx.account.upsert({
    where: { liveAccountId: holderId },
    create: { liveAccountId: holderId },
    update: {},
    select: { id: true },
  });
  return test.id;
}

/** openTestAccount in a transaction of its own: the bot's /webhook add ... test. */
export async function openHolderTestAccount(holderId: number): Promise<number> {
  const testId = await getPrisma().$transaction((tx) => openTestAccount(tx, holderId));
  if (testId === undefined) throw new Error(`account ${holderId} is not a live account`);
  return testId;
}

export type TestCreditResult =
  | { status: "credited"; balanceCents: number; creditedTodayCents: number }
  | { status: "over_daily_cap"; creditedTodayCents: number; capCents: number };

export async function creditTestWallet(
  holderId: number,
  amountCents: number,
  actor: string,
): Promise<TestCreditResult> {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new Error("a test credit must be positive cents");
  return getPrisma().$transaction(async (tx) => {
    const testId = await openTestAccount(tx, holderId);
    if (testId === undefined) throw new Error(`account ${holderId} is not a live account`);
    // Serialises the holder's test credits, so two at once cannot both pass the cap.
    await lockAccount(tx, testId);
    const today = await tx.ledgerEntry.aggregate({
      where: { accountId: testId, kind: "credit", createdAt: { gte: startOfUtcDay() } },
      _sum: { amountCents: true },
    });
    const creditedTodayCents = numberFromDb(today._sum.amountCents ?? 0n);
    if (creditedTodayCents + amountCents > TEST_CREDIT_DAILY_CAP_CENTS) {
      return { status: "over_daily_cap" as const, creditedTodayCents, capCents: TEST_CREDIT_DAILY_CAP_CENTS };
    }
    const entry = await postLedgerEntry(tx, {
      accountId: testId,
      kind: "credit",
      amountCents,
      actor,
      reason: "test credit (play money)",
    });
    return {
      status: "credited" as const,
      balanceCents: entry.balanceAfterCents,
      creditedTodayCents: creditedTodayCents + amountCents,
    };
  });
}

/** Empties the test wallet with one adjustment; the balance it took away (0 when it was empty). */
export async function resetTestWallet(holderId: number, actor: string): Promise<{ removedCents: number }> {
  return getPrisma().$transaction(async (tx) => {
    const testId = await openTestAccount(tx, holderId);
    if (testId === undefined) throw new Error(`account ${holderId} is not a live account`);
    // The balance read under the row's lock is the balance the adjustment takes away: no order
    // debits between the two.
    await lockAccount(tx, testId);
    const { balanceCents } = await tx.account.findUniqueOrThrow({
      where: { id: testId },
      select: { balanceCents: true },
    });
    const removedCents = numberFromDb(balanceCents);
    if (removedCents > 0) {
      await postLedgerEntry(tx, {
        accountId: testId,
        kind: "adjustment",
        amountCents: -removedCents,
        actor,
        reason: "test wallet reset",
      });
    }
    return { removedCents };
  });
}

/** The holder's test balance in cents; 0 before the first test key or credit. */
export async function readTestBalance(holderId: number): Promise<number> {
  const test = await getPrisma().account.findUnique({
    where: { liveAccountId: holderId },
    select: { balanceCents: true },
  });
  return test ? numberFromDb(test.balanceCents) : 0;
}

function startOfUtcDay(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}
