// The accounts table: newest first, paged by id, optionally narrowed by what an admin knows about
// the holder (account id, Telegram id, @username or display name).
import { getPrisma } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { toAccountRecord, type AccountRecord } from "../accounts/account-record";
import { escapeLike } from "./escape-like";

interface AccountListItem extends AccountRecord {
  activeKeys: number;
  orderCount: number;
}

export interface AccountPage {
  accounts: AccountListItem[];
  olderCursor?: number;
}

export async function listAccounts(
  options: { query?: string; olderThan?: number; limit?: number } = {},
): Promise<AccountPage> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  // Test accounts (test mode's wallets) are their holders': shown on the holder's page.
  const where: Prisma.AccountWhereInput[] = [{ liveAccountId: null }];
  const query = options.query?.trim().replace(/^@/, "") ?? "";
  if (query) {
    const number = /^#?\d{1,15}$/.test(query) ? Number(query.replace("#", "")) : undefined;
    const text = escapeLike(query);
    const matches: Prisma.AccountWhereInput[] = [
      { telegramUsername: { contains: text, mode: "insensitive" } },
      { displayName: { contains: text, mode: "insensitive" } },
    ];
    if (number !== undefined && number <= 2_147_483_647) matches.push({ id: number });
    if (number !== undefined) matches.push({ telegramId: BigInt(number) });
    where.push({ OR: matches });
  }
  if (options.olderThan !== undefined) where.push({ id: { lt: options.olderThan } });
  const prisma = getPrisma();
  const rows = await prisma.account.findMany({ where: { AND: where }, orderBy: { id: "desc" }, take: limit + 1 });
  const page = rows.slice(0, limit);
  const ids = page.map((account) => account.id);
  // Counted from the page's keys (order_count, kept by placement), not Prisma's relation count,
  // which groups every order of every account first; orders of deleted keys are counted apart.
  const [keys, keyless] = await Promise.all([
    prisma.apiKey.findMany({
      where: { accountId: { in: ids } },
      select: { accountId: true, revokedAt: true, orderCount: true },
    }),
    prisma.order.groupBy({
      by: ["accountId"],
      where: { accountId: { in: ids }, apiKeyId: null },
      _count: { _all: true },
    }),
  ]);
  const counts = new Map(ids.map((id) => [id, { activeKeys: 0, orderCount: 0 }]));
  for (const key of keys) {
    const count = counts.get(key.accountId)!;
    if (!key.revokedAt) count.activeKeys++;
    count.orderCount += key.orderCount;
  }
  for (const group of keyless) counts.get(group.accountId)!.orderCount += group._count._all;
  const accounts = page.map((account) => ({ ...toAccountRecord(account), ...counts.get(account.id)! }));
  return { accounts, olderCursor: rows.length > limit ? accounts.at(-1)?.id : undefined };
}
