// The accounts table: newest first, paged by id, optionally narrowed by what an admin knows about
// the holder (account id, Telegram id, @username or display name).
import { getPool } from "../db/pool";
import { accountColumns, type AccountRecord } from "../accounts/account-record";

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
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown) => `$${values.push(value)}`;
  const query = options.query?.trim().replace(/^@/, "") ?? "";
  if (query) {
    const number = /^#?\d{1,15}$/.test(query) ? Number(query.replace("#", "")) : undefined;
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const matches: string[] = [];
    if (number !== undefined && number <= 2_147_483_647) matches.push(`a.id = ${param(number)}`);
    if (number !== undefined) matches.push(`a.telegram_id = ${param(number)}`);
    const patternParam = param(pattern);
    matches.push(`a.telegram_username ILIKE ${patternParam}`, `a.display_name ILIKE ${patternParam}`);
    where.push(`(${matches.join(" OR ")})`);
  }
  if (options.olderThan !== undefined) where.push(`a.id < ${param(options.olderThan)}`);
  const { rows } = await getPool().query<AccountListItem>(
    `SELECT ${accountColumns("a")},
            (SELECT count(*)::int FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NULL) AS "activeKeys",
            (SELECT count(*)::int FROM orders o WHERE o.account_id = a.id) AS "orderCount"
       FROM accounts a ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY a.id DESC LIMIT ${param(limit + 1)}`,
    values,
  );
  const accounts = rows.slice(0, limit);
  return { accounts, olderCursor: rows.length > limit ? accounts[accounts.length - 1].id : undefined };
}
