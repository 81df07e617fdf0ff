// A local Bot API server for tests: the real Telegraf bot talks to it over HTTP (telegram.apiRoot)
// exactly as it would talk to Telegram. It hands out queued updates through getUpdates (honouring
// the offset the bot confirms, like Telegram), can redeliver an update the bot already confirmed
// (what Telegram does after a crash or a webhook timeout), and records every call the bot makes so
// tests can assert on the text and buttons it sent.
//
// Webhook mode: after setWebhook it POSTs each update to the registered URL the way Telegram does
// (JSON body, the secret_token in X-Telegram-Bot-Api-Secret-Token, several updates at once on
// separate connections), and getUpdates answers 409 Conflict as long as a webhook is set.
import { fork } from "node:child_process";
import crypto from "node:crypto";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { Telegraf } from "telegraf";
import type { Update } from "telegraf/types";
import { inject } from "vitest";
import { createBot, type CreateBotOptions } from "@/bot";
import { projectRoot } from "@/lib/config/env";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import type { BotContext } from "@/bot/context";

export interface RecordedCall {
  method: string;
  payload: Record<string, any>;
  /** What the fake answered: the sent message (with its message_id), true, or an error body. */
  response?: any;
}

export interface FakeUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

interface QueuedUpdate {
  update: Update;
  /** Redelivered regardless of the bot's offset (once), as Telegram does after a lost confirmation. */
  forced: boolean;
  /** Index of the getUpdates response that handed it out last. */
  handedOutIn?: number;
  settle: () => void;
}

interface Poller {
  offset: number;
  limit: number;
  respond: (updates: Update[]) => void;
  timer: NodeJS.Timeout;
}

const BOT_USER = { id: 7_000_000_001, is_bot: true, first_name: "Top-up Bot", username: "topup_test_bot" };

export interface FakeWebhook {
  url: string;
  secretToken?: string;
  allowedUpdates?: string[];
}

export interface WebhookDelivery {
  status: number;
  body: string;
}

export class FakeTelegram {
  readonly token = "7000000001:TEST-token-for-the-fake-bot-api";
  readonly botUser = BOT_USER;
  /** Every call except getUpdates, in order. */
  readonly calls: RecordedCall[] = [];
  /** sendMessage to these chat ids answers 403 "bot was blocked by the user". */
  readonly blockedChats = new Set<number>();
  /** Methods whose next call fails with 400 (one failure each time failNext is called). */
  private failures: string[] = [];
  getUpdatesCount = 0;
  /** What setWebhook registered; undefined in polling mode. */
  webhook: FakeWebhook | undefined;

  private queue: QueuedUpdate[] = [];
  private poller: Poller | undefined;
  private responsesSent = 0;
  private nextUpdate = 1000;
  private nextMessage = 1;

  private constructor(
    private readonly server: http.Server,
    readonly apiRoot: string,
    private readonly longPollMs: number,
  ) {}

  static async start(options: { longPollMs?: number; firstUpdateId?: number } = {}): Promise<FakeTelegram> {
    let fake: FakeTelegram | undefined;
    const server = http.createServer((req, res) => void fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeTelegram(server, `http://127.0.0.1:${port}`, options.longPollMs ?? 300);
    if (options.firstUpdateId !== undefined) fake.nextUpdate = options.firstUpdateId - 1;
    return fake;
  }

  // ---- building updates ----------------------------------------------------------------------

  newUpdateId(): number {
    return ++this.nextUpdate;
  }

  /** A private-chat text message; a leading /command gets the bot_command entity Telegram adds. */
  message(
    from: FakeUser,
    text: string,
    chat: { id: number; type: "private" | "group" | "supergroup" } = { id: from.id, type: "private" },
  ): Update {
    const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
    return {
      update_id: this.newUpdateId(),
      message: {
        message_id: this.nextMessage++,
        date: Math.floor(Date.now() / 1000),
        chat:
          chat.type === "private"
            ? { id: chat.id, type: "private", first_name: from.first_name, username: from.username }
            : { id: chat.id, type: chat.type, title: "A group" },
        from: { ...from, is_bot: false },
        text,
        ...(command ? { entities: [{ type: "bot_command" as const, offset: 0, length: command[0].length }] } : {}),
      },
    } as Update;
  }

  /** `text` as `from` forwards it from `original`'s message (Bot API 7: forward_origin). */
  forwarded(from: FakeUser, text: string, original: FakeUser): Update {
    const update = this.message(from, text) as Update.MessageUpdate;
    Object.assign(update.message, {
      forward_origin: {
        type: "user",
        date: Math.floor(Date.now() / 1000) - 60,
        sender_user: { ...original, is_bot: false },
      },
    });
    return update;
  }

  /** A press of an inline button with `data` on the bot's message `message_id` in `from`'s chat. */
  callback(from: FakeUser, data: string, messageId: number): Update {
    return {
      update_id: this.newUpdateId(),
      callback_query: {
        id: `cb-${this.nextUpdate}`,
        from: { ...from, is_bot: false },
        chat_instance: `ci-${from.id}`,
        data,
        message: {
          message_id: messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: from.id, type: "private", first_name: from.first_name },
          from: BOT_USER,
          text: "(button message)",
        },
      },
    } as Update;
  }

  // ---- delivering updates ----------------------------------------------------------------------

  /**
   * Queues updates as Telegram would (one getUpdates batch when the bot is waiting) and resolves
   * once the bot has finished handling them: Telegraf asks for the next batch only after every
   * handler of the previous one has returned.
   */
  deliver(...updates: Update[]): Promise<void> {
    return this.enqueue(updates, false);
  }

  /** Hands out updates again even though the bot already confirmed them (Telegram's redelivery). */
  redeliver(...updates: Update[]): Promise<void> {
    return this.enqueue(updates, true);
  }

  private enqueue(updates: Update[], forced: boolean, timeoutMs = 15_000): Promise<void> {
    if (this.webhook) return this.deliverToWebhook(updates);
    const settled = updates.map(
      (update) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () =>
              reject(
                new Error(`update ${update.update_id} was not handled within ${timeoutMs} ms: is the bot polling?`),
              ),
            timeoutMs,
          );
          // A structured copy: each delivery is a fresh object, as it would be off the wire.
          this.queue.push({ update: structuredClone(update), forced, settle: () => (clearTimeout(timer), resolve()) });
        }),
    );
    this.wakePoller();
    return Promise.all(settled).then(() => undefined);
  }

  /**
   * Webhook mode: each update is its own POST, all at once (Telegram keeps several connections
   * open). Resolves when every one was answered 2xx, which the bot does once it has handled it;
   * a refusal is an error the test sees, as Telegram would report it in getWebhookInfo.
   */
  private async deliverToWebhook(updates: Update[]): Promise<void> {
    const answers = await Promise.all(updates.map((update) => this.postUpdate(update)));
    const refused = answers.find((answer) => answer.status < 200 || answer.status > 299);
    if (refused) throw new Error(`the webhook refused an update: ${refused.status} ${refused.body}`);
  }

  /**
   * POSTs one update to the registered webhook as Telegram does, with the registered secret, or
   * with `secretToken` instead (null: no header at all), as a forger would.
   */
  async postUpdate(
    update: Update,
    options: { secretToken?: string | null; url?: string } = {},
  ): Promise<WebhookDelivery> {
    const url = options.url ?? this.webhook?.url;
    if (!url) throw new Error("no webhook is set: call setWebhook (npm run bot:webhook) first");
    const secret = options.secretToken === undefined ? this.webhook?.secretToken : options.secretToken;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (secret !== null && secret !== undefined) headers["x-telegram-bot-api-secret-token"] = secret;
    const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(update) });
    return { status: response.status, body: await response.text() };
  }

  /** Sends `text` from `from` and returns the calls the bot made while handling it. */
  async send(from: FakeUser, text: string): Promise<RecordedCall[]> {
    const mark = this.calls.length;
    await this.deliver(this.message(from, text));
    return this.calls.slice(mark);
  }

  /** Forwards `original`'s message `text` as `from` and returns the calls the bot made while handling it. */
  async sendForwarded(from: FakeUser, text: string, original: FakeUser): Promise<RecordedCall[]> {
    const mark = this.calls.length;
    await this.deliver(this.forwarded(from, text, original));
    return this.calls.slice(mark);
  }

  /** Presses a button and returns the calls the bot made while handling it. */
  async press(from: FakeUser, data: string, messageId: number): Promise<RecordedCall[]> {
    const mark = this.calls.length;
    await this.deliver(this.callback(from, data, messageId));
    return this.calls.slice(mark);
  }

  /** Makes the next call of `method` fail with 400, as a transient Bot API error would. */
  failNext(method: string): void {
    this.failures.push(method);
  }

  // ---- reading what the bot did ----------------------------------------------------------------

  /** Texts the bot sent (sendMessage) to a chat, oldest first. */
  textsTo(chatId: number): string[] {
    return this.calls
      .filter((call) => call.method === "sendMessage" && Number(call.payload.chat_id) === chatId)
      .map((call) => call.payload.text);
  }

  // ---- the Bot API -----------------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(new URL(req.url ?? "/", "http://x").pathname);
    let recorded: RecordedCall | undefined;
    const reply = (status: number, body: any) => {
      if (recorded) recorded.response = body.ok ? body.result : body;
      if (res.writableEnded || res.destroyed) return;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (!match) return reply(404, { ok: false, error_code: 404, description: "Not Found" });
    if (match[1] !== this.token) return reply(401, { ok: false, error_code: 401, description: "Unauthorized" });
    const method = match[2]!;
    let payload: Record<string, any> = {};
    const raw = Buffer.concat(chunks).toString("utf8");
    if (raw) {
      try {
        payload = JSON.parse(raw);
      } catch {
        return reply(400, { ok: false, error_code: 400, description: "Bad Request: this fake reads JSON bodies only" });
      }
    }

    if (method === "getUpdates") {
      if (this.webhook) {
        return reply(409, {
          ok: false,
          error_code: 409,
          description:
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        });
      }
      this.getUpdatesCount++;
      return this.getUpdates(payload, res, (updates) => reply(200, { ok: true, result: updates }));
    }
    recorded = { method, payload };
    this.calls.push(recorded);
    const ok = (result: unknown) => reply(200, { ok: true, result });
    const failure = this.failures.indexOf(method);
    if (failure >= 0) {
      this.failures.splice(failure, 1);
      return reply(400, { ok: false, error_code: 400, description: "Bad Request: injected failure" });
    }
    switch (method) {
      case "getMe":
        return ok(BOT_USER);
      case "setWebhook": {
        if (typeof payload.url !== "string" || !/^https?:\/\//.test(payload.url)) {
          return reply(400, {
            ok: false,
            error_code: 400,
            description: "Bad Request: bad webhook: an HTTPS URL must be provided for webhook",
          });
        }
        if (payload.secret_token !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(payload.secret_token)) {
          return reply(400, {
            ok: false,
            error_code: 400,
            description: "Bad Request: secret token contains unallowed characters",
          });
        }
        this.webhook = { url: payload.url, secretToken: payload.secret_token, allowedUpdates: payload.allowed_updates };
        return ok(true);
      }
      case "deleteWebhook":
        this.webhook = undefined;
        return ok(true);
      case "getWebhookInfo":
        return ok({
          url: this.webhook?.url ?? "",
          has_custom_certificate: false,
          pending_update_count: 0,
          allowed_updates: this.webhook?.allowedUpdates,
        });
      case "setMyCommands":
      case "answerCallbackQuery":
        return ok(true);
      case "sendMessage": {
        const chatId = Number(payload.chat_id);
        if (this.blockedChats.has(chatId)) {
          return reply(403, { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" });
        }
        if (typeof payload.text !== "string" || payload.text.length === 0) {
          return reply(400, { ok: false, error_code: 400, description: "Bad Request: message text is empty" });
        }
        if (payload.text.length > 4096)
          return reply(400, { ok: false, error_code: 400, description: "Bad Request: message is too long" });
        if (payload.parse_mode === "HTML") {
          const problem = htmlProblem(payload.text);
          if (problem)
            return reply(400, {
              ok: false,
              error_code: 400,
              description: `Bad Request: can't parse entities: ${problem}`,
            });
        }
        return ok({
          message_id: this.nextMessage++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chatId, type: "private" },
          from: BOT_USER,
          text: payload.text,
        });
      }
      case "editMessageText": {
        if (payload.parse_mode === "HTML") {
          const problem = htmlProblem(payload.text);
          if (problem)
            return reply(400, {
              ok: false,
              error_code: 400,
              description: `Bad Request: can't parse entities: ${problem}`,
            });
        }
        return ok({
          message_id: payload.message_id,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(payload.chat_id), type: "private" },
          from: BOT_USER,
          text: payload.text,
        });
      }
      case "editMessageReplyMarkup":
        return ok({
          message_id: payload.message_id,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(payload.chat_id), type: "private" },
          from: BOT_USER,
        });
      default:
        // An unexpected method is an error the test should see, not a silent success.
        return reply(404, { ok: false, error_code: 404, description: `Not Found: method ${method} is not faked` });
    }
  }

  private getUpdates(
    payload: Record<string, any>,
    res: http.ServerResponse,
    respond: (updates: Update[]) => void,
  ): void {
    const request = this.responsesSent; // responses before this request: their updates are now handled
    for (const entry of this.queue) if (entry.handedOutIn !== undefined && entry.handedOutIn < request) entry.settle();
    const offset = Number(payload.offset ?? 0);
    // Confirmed by the offset (or a forced redelivery already handed out): gone, as on Telegram.
    this.queue = this.queue.filter((entry) =>
      entry.forced ? entry.handedOutIn === undefined : entry.update.update_id >= offset,
    );
    const limit = Number(payload.limit ?? 100);
    const timeoutSeconds = Number(payload.timeout ?? 0);
    if (this.poller) this.flushPoller();
    // Without a timeout this is Telegraf confirming its offset on the way out (bot.stop): answer
    // as Telegram would, but nothing counts as handed out, since no handler will run.
    if (timeoutSeconds === 0)
      return respond(this.takeReady(offset, limit).map((entry) => structuredClone(entry.update)));
    const ready = this.takeReady(offset, limit);
    if (ready.length > 0) return this.sendBatch(ready, respond);
    // Long poll, briefly: the bot gets what arrives meanwhile, or an empty batch.
    const poller: Poller = {
      offset,
      limit,
      respond,
      timer: setTimeout(() => this.flushPoller(), Math.min(this.longPollMs, timeoutSeconds * 1000)),
    };
    this.poller = poller;
    res.once("close", () => {
      // The bot aborted the poll (bot.stop): forget it, so nothing is "handed out" to a dead request.
      if (this.poller === poller) {
        clearTimeout(poller.timer);
        this.poller = undefined;
      }
    });
  }

  private takeReady(offset: number, limit: number): QueuedUpdate[] {
    return this.queue
      .filter((entry) => (entry.forced ? entry.handedOutIn === undefined : entry.update.update_id >= offset))
      .slice(0, limit);
  }

  private sendBatch(entries: QueuedUpdate[], respond: (updates: Update[]) => void): void {
    const index = this.responsesSent++;
    for (const entry of entries) entry.handedOutIn = index;
    respond(entries.map((entry) => structuredClone(entry.update)));
  }

  private flushPoller(): void {
    const poller = this.poller;
    if (!poller) return;
    this.poller = undefined;
    clearTimeout(poller.timer);
    this.sendBatch(this.takeReady(poller.offset, poller.limit), poller.respond);
  }

  private wakePoller(): void {
    // Let every update queued in the same tick join one batch, as concurrent arrivals would.
    if (this.poller) setImmediate(() => this.flushPoller());
  }

  async close(): Promise<void> {
    if (this.poller) {
      clearTimeout(this.poller.timer);
      this.poller = undefined;
    }
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The subset of Telegram's HTML rules a bot can break by forgetting to escape: tags must be known
 * and balanced, and "<", ">", "&" outside tags must be escaped. Returns a description or undefined.
 */
export function htmlProblem(text: string): string | undefined {
  const allowed = new Set([
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "code",
    "pre",
    "a",
    "tg-spoiler",
    "blockquote",
    "span",
  ]);
  const stack: string[] = [];
  const tokens = text.split(/(<[^>]*>)/);
  for (const token of tokens) {
    if (token.startsWith("<")) {
      const tag = /^<(\/?)([a-z-]+)(\s[^>]*)?>$/.exec(token);
      if (!tag || !allowed.has(tag[2]!)) return `unsupported tag ${token}`;
      if (tag[1]) {
        if (stack.pop() !== tag[2]) return `unbalanced ${token}`;
      } else stack.push(tag[2]!);
    } else {
      if (token.includes(">")) return `unescaped ">"`;
      if (/&(?!(amp|lt|gt|quot|#\d+);)/.test(token)) return `unescaped "&"`;
    }
  }
  return stack.length ? `unclosed <${stack.at(-1)}>` : undefined;
}

/** Buttons of a recorded sendMessage / editMessageText call: [text, callback_data] pairs. */
export function buttonsOf(call: RecordedCall | undefined): Array<[string, string]> {
  const keyboard: Array<Array<{ text: string; callback_data?: string }>> =
    call?.payload.reply_markup?.inline_keyboard ?? [];
  return keyboard.flat().map((button) => [button.text, button.callback_data ?? ""]);
}

/** Tags stripped and entities decoded: what the user reads. */
export function plain(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

export type BotMode = "polling" | "webhook";
/** The bot's tests that must hold in both modes run once per mode. */
export const BOT_MODES: readonly BotMode[] = ["polling", "webhook"];

export interface RunningBot {
  mode: BotMode;
  /** The bot in this process (polling); in webhook mode it lives in the web server's process. */
  bot?: Telegraf<BotContext>;
  /** Stops polling and waits for launch() to return, as SIGTERM does in scripts/bot.ts; or stops the web server. */
  stop(): Promise<void>;
}

export interface RunningWebhookBot extends RunningBot {
  /** The web server the webhook points at. */
  baseUrl: string;
  /** The TELEGRAM_WEBHOOK_SECRET it was registered with. */
  secret: string;
}

/** Starts the real bot in the given mode against the fake; resolves once updates reach it. */
export function startBot(
  fake: FakeTelegram,
  mode: BotMode,
  options: Omit<CreateBotOptions, "apiRoot"> = {},
): Promise<RunningBot> {
  return mode === "polling" ? startPollingBot(fake, options) : startWebhookBot(fake, options);
}

function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = fork(path.join(projectRoot, "scripts", script), args, {
    env: { ...process.env, ...env },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

/**
 * Webhook mode as deployed: the real web server (scripts/serve.ts) with TELEGRAM_WEBHOOK_SECRET,
 * registered with the fake through the real command (`npm run bot:webhook -- <url>`), so the fake
 * then POSTs every update to the server's /api/telegram/webhook.
 */
export async function startWebhookBot(
  fake: FakeTelegram,
  options: Omit<CreateBotOptions, "apiRoot"> = {},
): Promise<RunningWebhookBot> {
  const secret = crypto.randomBytes(24).toString("base64url");
  const env = {
    ...TEST_ENV,
    DATABASE_URL: inject("databaseUrl"),
    SERVE_DASHBOARD: "0",
    TELEGRAM_BOT_TOKEN: fake.token,
    TELEGRAM_API_ROOT: fake.apiRoot,
    TELEGRAM_WEBHOOK_SECRET: secret,
    ADMIN_TELEGRAM_IDS: (options.adminTelegramIds ?? []).map(String).join(","),
  };
  const { child, baseUrl } = await startServer(env);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  };
  const registered = await runScript("bot-webhook.ts", [baseUrl], env);
  if (registered.code !== 0 || fake.webhook?.url !== `${baseUrl}/api/telegram/webhook`) {
    await stop();
    throw new Error(`npm run bot:webhook failed (exit ${registered.code}): ${registered.output}`);
  }
  return { mode: "webhook", baseUrl, secret, stop };
}

/** Starts the real bot with long polling against the fake; resolves once it is polling. */
export async function startPollingBot(
  fake: FakeTelegram,
  options: Omit<CreateBotOptions, "apiRoot"> = {},
): Promise<RunningBot> {
  const bot = createBot(fake.token, { apiRoot: fake.apiRoot, adminTelegramIds: options.adminTelegramIds ?? [] });
  const before = fake.getUpdatesCount;
  let launchError: unknown;
  const launched = bot.launch().catch((error) => {
    launchError = error;
  });
  // Polling has begun when the first getUpdates arrives.
  const deadline = Date.now() + 10_000;
  while (fake.getUpdatesCount === before) {
    if (launchError) throw launchError;
    if (Date.now() > deadline) throw new Error("the bot did not start polling within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    mode: "polling",
    bot,
    async stop() {
      bot.stop("test");
      await launched;
      if (launchError) throw launchError;
    },
  };
}
