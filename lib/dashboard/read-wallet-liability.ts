// What the service owes its account holders: the sum of live wallet balances (test wallets hold
// play money and owe nothing). Each balance equals its ledger, so this is the ledger's total too.
import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";

export interface WalletLiability {
  totalCents: number;
  /** Live accounts holding money. */
  fundedAccounts: number;
}

export async function readWalletLiability(): Promise<WalletLiability> {
  const where = { liveAccountId: null, balanceCents: { gt: 0 } };
  const [{ _sum }, fundedAccounts] = await Promise.all([
    getPrisma().account.aggregate({ _sum: { balanceCents: true }, where: { liveAccountId: null } }),
    getPrisma().account.count({ where }),
  ]);
  return { totalCents: numberFromDb(_sum.balanceCents ?? 0n), fundedAccounts };
}
