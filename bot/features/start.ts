// /start (idempotent registration and what to do next) and /help.
import { Composer } from "telegraf";
import { registerTelegramAccount } from "@/lib/accounts/register-telegram-account";
import { listApiKeys } from "@/lib/accounts/list-api-keys";
import type { AccountRecord } from "@/lib/accounts/account-record";
import { telegramAdminMay } from "@/lib/admin-users/telegram-admin";
import { ADMIN_COMMANDS, HOLDER_COMMANDS } from "../commands";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, formatTime, formatUsd, replyHtml } from "../format";

export const start = new Composer<BotContext>();

/** Lines warning about anything that stops the account's API calls, for /start and /keys. */
export function accountWarnings(account: AccountRecord, now = Date.now()): string[] {
  const warnings: string[] = [];
  if (account.bannedAt) warnings.push("⛔ This account is banned: API calls answer ACCOUNT_BANNED.");
  if (account.restrictedUntil && account.restrictedUntil.getTime() > now) {
    warnings.push(
      `⏳ This account is restricted until ${formatTime(account.restrictedUntil)}: API calls answer ACCOUNT_RESTRICTED.`,
    );
  }
  if (account.apiDisabledByAdmin)
    warnings.push("🚫 An admin has turned API access off for this account (API_DISABLED_BY_ADMIN).");
  return warnings;
}

start.start(async (ctx) => {
  const sender = senderOf(ctx);
  const { account, created } = await registerTelegramAccount(
    { telegramId: sender.telegramId, username: sender.username, displayName: sender.displayName },
    sender.actor,
  );
  const keys = await listApiKeys(account.id);
  const lines: string[] = [];
  lines.push(
    created
      ? `Welcome! Your account <b>#${account.id}</b> is ready.`
      : `Welcome back! This is account <b>#${account.id}</b>.`,
  );
  lines.push("");
  lines.push(
    `Balance: <b>${formatUsd(account.balanceCents)}</b> · API access: <b>${account.apiEnabled ? "on" : "off"}</b> · API keys: <b>${keys.length}</b>`,
  );
  const steps: string[] = [];
  if (keys.length === 0) steps.push("/newkey — create your API key (it is shown only once)");
  if (!account.apiEnabled) steps.push("/api on — turn API access on");
  if (keys.length > 0 && keys.every((key) => key.cidrs.length === 0)) {
    steps.push("/ip add &lt;your server's IP&gt; — allow only your servers to use the key (recommended)");
  }
  if (account.balanceCents === 0) steps.push(`ask an admin to fund your wallet, quoting account #${account.id}`);
  if (steps.length > 0) {
    lines.push("", "Next steps:");
    steps.forEach((step, index) => lines.push(`${index + 1}. ${step}`));
  }
  const warnings = accountWarnings(account);
  if (warnings.length > 0) lines.push("", ...warnings);
  lines.push("", "/help lists every command.");
  await replyHtml(ctx, lines.join("\n"));
});

start.help(async (ctx) => {
  const sender = senderOf(ctx);
  const lines = [
    "<b>Commands</b>",
    ...HOLDER_COMMANDS.map((info) => `${escapeHtml(info.usage)} — ${escapeHtml(info.description)}`),
  ];
  lines.push("", "The key prefix is needed in /ip commands only when you have more than one key.");
  const { admin } = sender;
  if (admin) {
    lines.push(
      "",
      `<b>Admin commands</b> (${escapeHtml(admin.email)}, ${escapeHtml(admin.role)})`,
      ...ADMIN_COMMANDS.filter((info) => telegramAdminMay(admin, info.role)).map(
        (info) => `${escapeHtml(info.usage)} — ${escapeHtml(info.description)}`,
      ),
    );
    lines.push("", "&lt;account&gt; is an account id (42) or a Telegram @username. Amounts are USD, e.g. 25 or 19.99.");
  }
  await replyHtml(ctx, lines.join("\n"));
});
