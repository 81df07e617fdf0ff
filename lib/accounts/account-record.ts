// The account as the bot and the dashboard see it: Prisma's Account with cents and the Telegram id
// as numbers (lib/db/number-from-db.ts). Every lookup returns this one shape.
import type { Account } from "../generated/prisma/client";
import { nullableNumberFromDb, numberFromDb } from "../db/number-from-db";

export type AccountRecord = Omit<
  Account,
  | "telegramId"
  | "balanceCents"
  | "totalCreditedCents"
  | "lowBalanceThresholdCents"
  | "updatedAt"
  | "ledgerCount"
  | "ledgerLastAt"
  | "liveAccountId"
  // The tier is read by name where it is shown (describeAccount) and priced in SQL (api_caller).
  | "priceTierId"
> & {
  telegramId: number | null;
  lowBalanceThresholdCents: number | null;
  balanceCents: number;
  totalCreditedCents: number;
};

export function toAccountRecord(row: Account): AccountRecord {
  return {
    id: row.id,
    telegramId: nullableNumberFromDb(row.telegramId),
    telegramUsername: row.telegramUsername,
    displayName: row.displayName,
    apiEnabled: row.apiEnabled,
    apiDisabledByAdmin: row.apiDisabledByAdmin,
    bannedAt: row.bannedAt,
    banReason: row.banReason,
    restrictedUntil: row.restrictedUntil,
    restrictReason: row.restrictReason,
    isAdmin: row.isAdmin,
    balanceCents: numberFromDb(row.balanceCents),
    totalCreditedCents: numberFromDb(row.totalCreditedCents),
    lowBalanceThresholdCents: nullableNumberFromDb(row.lowBalanceThresholdCents),
    createdAt: row.createdAt,
  };
}
