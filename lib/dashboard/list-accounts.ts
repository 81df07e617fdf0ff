// The accounts table: newest first, paged by id, optionally narrowed by what an admin knows about
// the holder (account id, Telegram id, @username or display name).
import { getPrisma } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { toAccountRecord, type AccountRecord } from "../accounts/account-record";
import { escapeLike } from "./escape-like";

export interface AccountListItem extends AccountRecord {
  activeKeys: number;
  orderCount: number;
}

export interface AccountPage {
  accounts: AccountListItem[];
  olderCursor?: number;
}

export async function listAccounts(options: { query?: string; olderThan?: number; limit?: number } = {}): Promise<AccountPage> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  const where: Prisma.AccountWhereInput[] = [];
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
  const rows = await getPrisma().account.findMany({
    where: { AND: where },
    include: { _count: { select: { apiKeys: { where: { revokedAt: null } }, orders: true } } },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const accounts = rows.slice(0, limit).map(({ _count, ...account }) => ({
    ...toAccountRecord(account),
    activeKeys: _count.apiKeys,
    orderCount: _count.orders,
  }));
  return { accounts, olderCursor: rows.length > limit ? accounts[accounts.length - 1].id : undefined };
}
