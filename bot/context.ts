// The bot's typed context. Middleware fills `sender` once per update (bot/middleware/load-sender.ts),
// so handlers never look up the caller's account or admin rights themselves.
import type { Context } from "telegraf";
import type { AccountRecord } from "@/lib/accounts/account-record";

export interface BotConfig {
  /** Telegram user ids from ADMIN_TELEGRAM_IDS. accounts.is_admin grants the same rights. */
  adminTelegramIds: ReadonlySet<number>;
}

export interface Sender {
  telegramId: number;
  username: string | null;
  displayName: string | null;
  /** Undefined until the user has sent /start. */
  account?: AccountRecord;
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
