import { getPrisma, type PrismaDb } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import type { LedgerKind } from "../generated/prisma/enums";
import { toAccountRecord, type AccountRecord } from "./account-record";
import { listApiKeys, type ApiKeySummary } from "./list-api-keys";

interface LedgerLine {
  id: number;
  kind: LedgerKind;
  amountCents: number;
  balanceAfterCents: number;
  orderId: number | null;
  actor: string;
  reason: string | null;
  createdAt: Date;
}

export interface AccountDescription {
  account: AccountRecord;
  keys: ApiKeySummary[];
  /** Newest first. */
  recentLedger: LedgerLine[];
  orderCount: number;
  /** The account's price tier; null: list prices. */
  priceTier: string | null;
}

/** Everything an admin needs to judge an account at a glance (/account). */
export async function describeAccount(
  accountId: number,
  ledgerLimit = 10,
  db: PrismaDb = getPrisma(),
): Promise<AccountDescription | undefined> {
  const row = await db.account.findUnique({
    where: { id: accountId },
    include: { priceTier: { select: { name: true } } },
  });
  if (!row) return undefined;
  // Sequential on purpose: db may be one transaction's client, which runs one query at a time.
  const orderCount = await db.order.count({ where: { accountId } });
  const keys = await listApiKeys(accountId, db);
  const ledger = await db.ledgerEntry.findMany({
    where: { accountId },
    orderBy: { id: "desc" },
    take: ledgerLimit,
    select: {
      id: true,
      kind: true,
      amountCents: true,
      balanceAfterCents: true,
      orderId: true,
      actor: true,
      reason: true,
      createdAt: true,
    },
  });
  return {
    account: toAccountRecord(row),
    keys,
    recentLedger: ledger.map((line) => ({
      ...line,
      amountCents: numberFromDb(line.amountCents),
      balanceAfterCents: numberFromDb(line.balanceAfterCents),
    })),
    orderCount,
    priceTier: row.priceTier?.name ?? null,
  };
}
