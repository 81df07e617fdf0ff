// npm run bot:console -- --as <telegram-user-id> [--admin] [--username <name>]: the real bot's
// handlers in the terminal, for development without a Telegram bot token. Each typed line becomes
// the update Telegram would send (a message, or the press of a button shown by its number or
// label); the bot answers through the local Bot API (bot/local-bot-api.ts), and its replies are
// printed. It uses the database the other commands use (DATABASE_URL, or the embedded PostgreSQL
// under DATA_DIR, shared with a running `npm start`). --admin links that user to a development
// owner (an admin user with two-factor on, created once). Refused in production: it makes admins
// and moves money without Telegram or the dashboard.
import crypto from "node:crypto";
import readline from "node:readline";
import { parseArgs } from "node:util";
import { env, isProduction, pointAtDatabase } from "@/lib/config/env";
import { applyMigrations } from "@/lib/db/migrate";
import { closePool } from "@/lib/db/pool";
import { TOTP, Secret } from "otpauth";
import { createBot } from "@/bot";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { findTelegramAdmin } from "@/lib/admin-users/find-telegram-admin";
import { startTwoFactorSetup } from "@/lib/admin-users/start-two-factor-setup";
import { readTwoFactorSetup } from "@/lib/admin-users/read-two-factor-setup";
import { confirmTwoFactorSetup } from "@/lib/admin-users/confirm-two-factor-setup";
import { issueTelegramLinkCode } from "@/lib/admin-users/issue-telegram-link-code";
import { linkTelegramAccount } from "@/lib/admin-users/link-telegram-account";
import { findActiveAdmin } from "@/lib/admin-users/find-active-admin";
import { adminActor } from "@/lib/admin-users/admin-user-record";
import { LocalBotApi, plain, type InlineKeyboardMarkup, type LocalUser, type RecordedCall } from "@/bot/local-bot-api";
import { resolveDatabase } from "./database";
import pino from "pino";
import { nameProcess, sendLogsTo } from "@/lib/observability/logger";

const USAGE =
  "Usage: npm run bot:console -- --as <telegram-user-id> [--admin] [--username <name>]\n" +
  "  --as        the Telegram user id you talk to the bot as (any positive whole number)\n" +
  "  --admin     link that user to a development owner (/credit, /tier, /account ...; kept for later sessions)\n" +
  "  --username  their Telegram @username (what /credit @name finds)";

// Stdout is the conversation: the service's own log lines go to stderr.
nameProcess("bot-console");
sendLogsTo(pino.destination({ dest: 2, sync: true }));
const config = env();
if (isProduction(config)) {
  console.error(
    "[bot:console] refused: NODE_ENV=production. The console makes any user an admin and moves money without Telegram; use it in development only.",
  );
  process.exit(1);
}

let options: { as?: string; admin?: boolean; username?: string; help?: boolean };
try {
  ({ values: options } = parseArgs({
    options: {
      as: { type: "string" },
      admin: { type: "boolean" },
      username: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  }));
} catch (error) {
  console.error(`[bot:console] ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  process.exit(2);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const telegramId = Number(options.as);
if (!options.as || !/^\d{1,15}$/.test(options.as.trim()) || telegramId <= 0) {
  console.error(`[bot:console] --as needs a Telegram user id (a positive whole number).\n${USAGE}`);
  process.exit(2);
}
const username = options.username?.replace(/^@/, "");
if (username !== undefined && !/^[A-Za-z0-9_]{1,32}$/.test(username)) {
  console.error(`[bot:console] --username: "${options.username}" is not a Telegram username (letters, digits, _).`);
  process.exit(2);
}
const user: LocalUser = { id: telegramId, first_name: username ?? `User ${telegramId}`, username };

// Telegram's update ids are positive, so negative ones never shadow a real update in the bot's
// record of handled updates (bot/middleware/dedupe-updates.ts); time and pid keep sessions apart.
let sequence = process.pid;
const nextUpdateId = () => -(Date.now() * 1000 + (sequence++ % 1000));

const { url, embedded } = await resolveDatabase();
await applyMigrations(url);
pointAtDatabase(url);

/**
 * --admin: the bot's admins are dashboard admin users linked to Telegram, so the user is linked to a
 * development owner (created once, with two-factor on, as owner commands need). Its password is
 * random and never shown: sign in to the dashboard with an admin of `npm run admin:create`. A user
 * already linked to an admin keeps that link.
 */
async function linkDevelopmentOwner(): Promise<string> {
  const linked = await findTelegramAdmin(telegramId);
  if (linked) return `${linked.email} (${linked.role})`;
  const email = `console-${telegramId}@bot-console.invalid`;
  const actor = "cli:bot-console";
  const created = await createAdminUser({
    email,
    password: crypto.randomBytes(24).toString("base64url"),
    role: "owner",
    actor,
  });
  const admin = created.status === "created" ? created.admin : await findActiveAdmin(email);
  if (!admin) throw new Error(`${email} exists but is disabled: enable it on the dashboard, or use another --as`);
  if (admin.totpEnabledAt === null) {
    await startTwoFactorSetup(admin.id);
    const setup = await readTwoFactorSetup(admin.id);
    if (!setup) throw new Error(`no two-factor set-up for ${email}`);
    const code = () =>
      TOTP.generate({ secret: Secret.fromBase32(setup.secret), algorithm: "SHA1", digits: 6, period: 30 });
    // Once more if the clock crossed a 30-second step between the code and its check.
    const enabled =
      (await confirmTwoFactorSetup({ adminId: admin.id, code: code(), actor })).status === "enabled" ||
      (await confirmTwoFactorSetup({ adminId: admin.id, code: code(), actor })).status === "enabled";
    if (!enabled) throw new Error(`could not turn two-factor on for ${email}`);
  }
  const { code } = await issueTelegramLinkCode({ adminId: admin.id, actor: adminActor(email) });
  const result = await linkTelegramAccount({ code, telegramId, actor });
  if (result.status !== "linked") throw new Error(`could not link user ${telegramId} to ${email}: ${result.status}`);
  return `${email} (${result.role})`;
}

const adminName = options.admin ? await linkDevelopmentOwner() : undefined;
const api = await LocalBotApi.listen({ nextUpdateId });
const bot = createBot(api.token, { apiRoot: api.apiRoot, adminTelegramIds: config.adminTelegramIds });

// ---- printing what the bot did ---------------------------------------------------------------

const color = process.stdout.isTTY === true;
const style = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);

/** Telegram's HTML as a terminal shows it: bold and code styled on a terminal, links with their address. */
function render(html: string): string {
  const styled = html
    .replace(/<(b|strong)>([\s\S]*?)<\/\1>/g, (_, _tag, inner: string) => style("1", inner))
    .replace(/<(i|em)>([\s\S]*?)<\/\1>/g, (_, _tag, inner: string) => style("3", inner))
    .replace(/<(code|pre)>([\s\S]*?)<\/\1>/g, (_, _tag, inner: string) => style("36", inner))
    .replace(/<a\s+href="([^"]*)">([\s\S]*?)<\/a>/g, (_, href: string, inner: string) => `${inner} (${href})`);
  return plain(styled);
}

const indent = (text: string) => text.split("\n").join("\n    ");

interface Keyboard {
  messageId: number;
  text: string;
  buttons: Array<{ label: string; data: string; url?: string }>;
}

/** The keyboards still on screen, newest last: a press goes to the newest one. */
const keyboards = new Map<number, Keyboard>();

function keyboardOf(call: RecordedCall): Keyboard["buttons"] {
  const rows = (call.payload.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? [];
  return rows.flat().map((button) => ({ label: button.text, data: button.callback_data ?? "", url: button.url }));
}

function showKeyboard(messageId: number, text: string, buttons: Keyboard["buttons"]): void {
  keyboards.delete(messageId);
  if (buttons.length === 0) return;
  keyboards.set(messageId, { messageId, text, buttons });
  console.log(`    ${buttons.map((button, index) => style("7", `[${index + 1}] ${button.label}`)).join("  ")}`);
}

function print(call: RecordedCall): void {
  // The recorded answer: the message (or true) on success, Telegram's error body otherwise.
  const response = call.response as { ok?: boolean; description?: string; message_id?: number } | undefined;
  const refused = response?.ok === false ? response.description : undefined;
  const text = typeof call.payload.text === "string" ? call.payload.text : "";
  const messageId = Number(call.payload.message_id ?? response?.message_id);
  const chat = Number(call.payload.chat_id);
  const elsewhere = call.payload.chat_id !== undefined && chat !== telegramId ? ` → user ${chat}` : "";
  switch (call.method) {
    case "getMe":
    case "setMyCommands":
      return;
    case "sendMessage":
      console.log(`bot${elsewhere}: ${indent(render(text))}`);
      if (refused) console.log(`    (Telegram would refuse this message: ${refused})`);
      else if (!elsewhere) showKeyboard(messageId, text, keyboardOf(call));
      return;
    case "editMessageText":
      console.log(`bot (edits message ${messageId})${elsewhere}: ${indent(render(text))}`);
      if (refused) console.log(`    (Telegram would refuse this edit: ${refused})`);
      // An edit without reply_markup removes the message's buttons, as on Telegram.
      else if (!elsewhere) showKeyboard(messageId, text, keyboardOf(call));
      return;
    case "editMessageReplyMarkup":
      console.log(`bot (changes the buttons of message ${messageId})`);
      showKeyboard(messageId, keyboards.get(messageId)?.text ?? "", keyboardOf(call));
      return;
    case "answerCallbackQuery":
      if (typeof call.payload.text === "string" && call.payload.text)
        console.log(`bot (${call.payload.show_alert ? "alert" : "notice"}): ${call.payload.text}`);
      return;
    default:
      console.log(`bot called ${call.method}${refused ? ` (refused: ${refused})` : ""}`);
  }
}

// ---- reading what the user types -------------------------------------------------------------

const normalise = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** The button a typed line presses on the newest keyboard: its number, its label, or the start of one. */
function buttonFor(line: string): { keyboard: Keyboard; button: Keyboard["buttons"][number] } | undefined {
  const keyboard = [...keyboards.values()].at(-1);
  if (!keyboard || line.startsWith("/")) return undefined;
  const byNumber = /^\d+$/.test(line) ? keyboard.buttons[Number(line) - 1] : undefined;
  if (byNumber) return { keyboard, button: byNumber };
  const wanted = normalise(line);
  if (!wanted) return undefined;
  const exact = keyboard.buttons.filter((button) => normalise(button.label) === wanted);
  const starting = keyboard.buttons.filter((button) => normalise(button.label).startsWith(wanted));
  const match = exact.length === 1 ? exact[0] : starting.length === 1 ? starting[0] : undefined;
  return match ? { keyboard, button: match } : undefined;
}

async function handle(line: string): Promise<void> {
  const pressed = buttonFor(line);
  if (pressed?.button.url) {
    console.log(`(a link button: ${pressed.button.url})`);
    return;
  }
  const update = pressed
    ? api.callback(user, pressed.button.data, pressed.keyboard.messageId, plain(pressed.keyboard.text))
    : api.message(user, line);
  if (pressed) console.log(`(you press "${pressed.button.label}")`);
  const mark = api.calls.length;
  try {
    await bot.handleUpdate(update);
  } catch (error) {
    // The bot's own catch answers handler errors; this is what is left (the database is down, say).
    console.error(`[bot:console] the update failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const calls = api.calls.slice(mark);
  calls.forEach(print);
  if (!calls.some((call) => call.method !== "getMe")) console.log("(no reply)");
}

const where = new URL(url);
console.log(
  `[bot:console] you are Telegram user ${telegramId}${username ? ` (@${username})` : ""}` +
    `${adminName ? `, linked to admin ${adminName}` : ""}; database ${where.host}${where.pathname}`,
);
console.log(
  "[bot:console] type a command (/start, /help ...) or text; press a button by its number or label. Ctrl-D or Ctrl-C leaves.",
);

const input = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: color });
// Ctrl-C leaves as Ctrl-D does (readline would only pause the input).
input.on("SIGINT", () => input.close());
const prompt = () => color && input.prompt();
input.setPrompt(style("2", "you: "));
prompt();
try {
  // Lines are handled one at a time, in order, as a user's messages reach the bot.
  for await (const raw of input) {
    const line = raw.trim();
    if (line) await handle(line);
    prompt();
  }
} finally {
  await api.close();
  await closePool().catch(() => undefined);
  await embedded?.stop();
}
// Keep-alive sockets to the local Bot API must not hold the process open.
process.exit(0);
