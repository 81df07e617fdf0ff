import { getPool } from "../db/pool";
import { accountColumns, type AccountRecord, type Queryable } from "./account-record";

export type AccountLookup =
  | { status: "found"; account: AccountRecord }
  | { status: "not_found" }
  /** Two stored accounts carry the username (one of them changed it since): the admin must use the id. */
  | { status: "ambiguous"; accountIds: number[] }
  | { status: "invalid" };

const MAX_INT4 = 2_147_483_647;

/**
 * Finds an account by how an admin names it: its numeric id ("42" or "#42") or its Telegram
 * username ("@name", matched case-insensitively as Telegram does).
 */
export async function findAccount(reference: string, db: Queryable = getPool()): Promise<AccountLookup> {
  const text = reference.trim();
  const idMatch = /^#?(\d{1,10})$/.exec(text);
  if (idMatch) {
    const id = Number(idMatch[1]);
    if (id < 1 || id > MAX_INT4) return { status: "not_found" };
    const { rows } = await db.query<AccountRecord>(`SELECT ${accountColumns()} FROM accounts WHERE id = $1`, [id]);
    return rows[0] ? { status: "found", account: rows[0] } : { status: "not_found" };
  }
  const usernameMatch = /^@([A-Za-z0-9_]{1,64})$/.exec(text);
  if (!usernameMatch) return { status: "invalid" };
  const { rows } = await db.query<AccountRecord>(
    `SELECT ${accountColumns()} FROM accounts WHERE lower(telegram_username) = lower($1) ORDER BY id LIMIT 5`,
    [usernameMatch[1]],
  );
  if (rows.length === 0) return { status: "not_found" };
  if (rows.length > 1) return { status: "ambiguous", accountIds: rows.map((row) => row.id) };
  return { status: "found", account: rows[0] };
}

/** The account of a Telegram user, if they have registered. */
export async function findAccountByTelegramId(telegramId: number, db: Queryable = getPool()): Promise<AccountRecord | undefined> {
  const { rows } = await db.query<AccountRecord>(`SELECT ${accountColumns()} FROM accounts WHERE telegram_id = $1`, [telegramId]);
  return rows[0];
}
