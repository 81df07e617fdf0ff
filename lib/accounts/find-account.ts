import { getPrisma, type PrismaDb } from "../db/prisma";
import { toAccountRecord, type AccountRecord } from "./account-record";
import { accountIdsByUsername } from "./sql/match-telegram-username";

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
export async function findAccount(reference: string, db: PrismaDb = getPrisma()): Promise<AccountLookup> {
  const text = reference.trim();
  const idMatch = /^#?(\d{1,10})$/.exec(text);
  if (idMatch) {
    const id = Number(idMatch[1]);
    if (id < 1 || id > MAX_INT4) return { status: "not_found" };
    // A test account (test mode's wallet) is its holder's, never an account of its own to act on.
    const row = await db.account.findFirst({ where: { id, liveAccountId: null } });
    return row ? { status: "found", account: toAccountRecord(row) } : { status: "not_found" };
  }
  const usernameMatch = /^@([A-Za-z0-9_]{1,64})$/.exec(text);
  if (!usernameMatch?.[1]) return { status: "invalid" };
  const ids = await accountIdsByUsername(usernameMatch[1], db);
  if (ids.length === 0) return { status: "not_found" };
  if (ids.length > 1) return { status: "ambiguous", accountIds: ids };
  const row = await db.account.findUnique({ where: { id: ids[0] } });
  return row ? { status: "found", account: toAccountRecord(row) } : { status: "not_found" };
}

/** The account of a Telegram user, if they have registered. */
export async function findAccountByTelegramId(
  telegramId: number,
  db: PrismaDb = getPrisma(),
): Promise<AccountRecord | undefined> {
  const row = await db.account.findUnique({ where: { telegramId: BigInt(telegramId) } });
  return row ? toAccountRecord(row) : undefined;
}
