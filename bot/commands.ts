// Every command the bot answers, in one list: /help and Telegram's command menu are built from it,
// and the admin guard refuses every admin command it names to anyone whose linked admin user lacks
// its role.
import type { AdminRole } from "@/lib/admin-users/admin-role";

export interface CommandInfo {
  command: string;
  usage: string;
  description: string;
}

export const HOLDER_COMMANDS: readonly CommandInfo[] = [
  { command: "start", usage: "/start", description: "register (safe to repeat)" },
  { command: "newkey", usage: "/newkey [test]", description: "create an API key (shown once); test: a test key" },
  { command: "keys", usage: "/keys", description: "list your API keys" },
  { command: "revokekey", usage: "/revokekey <prefix>", description: "revoke a key" },
  {
    command: "keylimit",
    usage: "/keylimit <key-prefix> <usd>|off",
    description: "cap what a key's orders may charge per UTC day",
  },
  { command: "api", usage: "/api on|off", description: "turn API access on or off" },
  {
    command: "ip",
    usage: "/ip add|remove <ip-or-cidr> [key-prefix], /ip list, /ip require on|off [key-prefix]",
    description: "manage a key's IP allowlist",
  },
  { command: "balance", usage: "/balance", description: "wallet balance (live and test)" },
  {
    command: "deposit",
    usage: "/deposit <usd>",
    description: "fund your wallet: payment details, a unique amount and a reference",
  },
  { command: "deposits", usage: "/deposits", description: "your deposit requests and their states" },
  {
    command: "proof",
    usage: "/proof <text>",
    description: "proof of a transfer as text (or send a photo or a document)",
  },
  { command: "testcredit", usage: "/testcredit <usd>", description: "add play money to your test wallet" },
  { command: "testreset", usage: "/testreset", description: "empty your test wallet" },
  { command: "orders", usage: "/orders", description: "your last 10 orders" },
  {
    command: "webhook",
    usage: "/webhook add <https-url> [events] [test], /webhook list|remove|test|secret <id>",
    description: "order and wallet webhooks",
  },
  { command: "lowbalance", usage: "/lowbalance <usd>|off", description: "balance.low webhook threshold" },
  { command: "help", usage: "/help", description: "this list" },
];

/** /link <code>: anyone may send it; the one-time code from the dashboard is what proves the admin. */
const LINK_COMMAND: CommandInfo = {
  command: "link",
  usage: "/link <code>",
  description: "link this Telegram account to your dashboard admin (code from Your account)",
};

export interface AdminCommandInfo extends CommandInfo {
  /** The role its dashboard counterpart needs (app/admin/_lib/session.ts requireAdminForAction). */
  role: AdminRole;
}

// The one table of who may run what: each command needs the role of the dashboard action that does
// the same (money in and out as settling orders does, account states, switches; tiers are owners').
export const ADMIN_COMMANDS: readonly AdminCommandInfo[] = [
  {
    command: "credit",
    usage: "/credit <account> <amountUsd> [note]",
    description: "add money to a wallet (asks to confirm; large credits need a second admin)",
    role: "operator",
  },
  {
    command: "debit",
    usage: "/debit <account> <amountUsd> <reason>",
    description: "correcting deduction (asks to confirm)",
    role: "operator",
  },
  {
    command: "account",
    usage: "/account <account>",
    description: "state, balance, keys, recent ledger",
    role: "viewer",
  },
  { command: "ban", usage: "/ban <account> [reason]", description: "ban an account", role: "operator" },
  { command: "unban", usage: "/unban <account>", description: "lift a ban", role: "operator" },
  {
    command: "restrict",
    usage: "/restrict <account> <minutes> [reason]",
    description: "restrict for a while (0 lifts)",
    role: "operator",
  },
  {
    command: "block",
    usage: "/block <account>",
    description: "turn API access off (API_DISABLED_BY_ADMIN)",
    role: "operator",
  },
  {
    command: "tier",
    usage: "/tier <account> <tier|none>",
    description: "put an account on a price tier (none: list prices)",
    role: "owner",
  },
  { command: "unblock", usage: "/unblock <account>", description: "lift an API block", role: "operator" },
  {
    command: "maintenance",
    usage: "/maintenance on|off",
    description: "pause orders for maintenance",
    role: "operator",
  },
  {
    command: "ordersoff",
    usage: "/ordersoff on|off",
    description: "turn orders off for everyone (API_ORDER_DISABLED)",
    role: "operator",
  },
];

export const ADMIN_COMMAND_NAMES: readonly string[] = ADMIN_COMMANDS.map((info) => info.command);

/** The role an admin command needs, or undefined when `command` is not one. */
export function roleOfAdminCommand(command: string): AdminRole | undefined {
  return ADMIN_COMMANDS.find((info) => info.command === command)?.role;
}

/** Callback data of every admin button starts with this, so the guard can refuse them wholesale. */
export const ADMIN_CALLBACK_PREFIX = "adm:";

/**
 * Every admin button is a money button (Confirm / Cancel, Approve / Reject of /credit and /debit,
 * Approve / Reject of a deposit request): pressing one needs the role /credit needs.
 */
export const ADMIN_BUTTON_ROLE: AdminRole = roleOfAdminCommand("credit")!;

export function usageOf(command: string): string {
  const info = [...HOLDER_COMMANDS, LINK_COMMAND, ...ADMIN_COMMANDS].find((entry) => entry.command === command);
  if (!info) throw new Error(`unknown command ${command}`);
  return info.usage;
}
