// The bot's typed context. Middleware fills `sender` once per update (bot/middleware/load-sender.ts),
// so handlers never look up the caller's account or admin rights themselves.
import type { Context } from "telegraf";
import type { AccountRecord } from "@/lib/accounts/account-record";
import type { TelegramAdmin } from "@/lib/admin-users/telegram-admin";

interface BotConfig {
  /**
   * Telegram user ids from ADMIN_TELEGRAM_IDS: the bootstrap list. It grants no command; until an
   * owner has linked Telegram, these ids get the owners' notices and are told how to link.
   */
  adminTelegramIds: ReadonlySet<number>;
}

export interface Sender {
  telegramId: number;
  username: string | null;
  displayName: string | null;
  /** Undefined until the user has sent /start. */
  account?: AccountRecord;
  /** The active admin user linked to this Telegram account, read afresh for this update. */
  admin?: TelegramAdmin;
  /** `admin` is set: admin features are mounted (each command still needs its role, bot/middleware/admin-guard.ts). */
  isAdmin: boolean;
  /** How the audit log and the ledger name this user: "telegram:<id>". */
  actor: string;
}

export interface BotContext extends Context {
  config: BotConfig;
  sender?: Sender;
}

/** The sender of an update that reached a feature (load-sender stops updates without one). */
export function senderOf(ctx: BotContext): Sender {
  if (!ctx.sender) throw new Error("sender is not loaded: is load-sender registered before the features?");
  return ctx.sender;
}

/** The linked admin behind an update that reached an admin feature (mounted for linked admins only). */
export function adminOf(ctx: BotContext): TelegramAdmin {
  const admin = senderOf(ctx).admin;
  if (!admin) throw new Error("no linked admin: admin features are mounted for linked admins only");
  return admin;
}
