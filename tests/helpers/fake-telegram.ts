// A local Bot API server for tests: the real Telegraf bot talks to it over HTTP (telegram.apiRoot)
// exactly as it would talk to Telegram. The calls the bot makes are answered and recorded by the
// local Bot API the console uses (bot/local-bot-api.ts); this adds what tests need: it hands out
// queued updates through getUpdates (honouring the offset the bot confirms, like Telegram), can
// redeliver an update the bot already confirmed (what Telegram does after a crash or a webhook
// timeout), and can fail chosen calls.
//
// Webhook mode: after setWebhook it POSTs each update to the registered URL the way Telegram does
// (JSON body, the secret_token in X-Telegram-Bot-Api-Secret-Token, several updates at once on
// separate connections), and getUpdates answers 409 Conflict as long as a webhook is set.
import { fork } from "node:child_process";
import crypto from "node:crypto";
import type http from "node:http";
import path from "node:path";
import type { Telegraf } from "telegraf";
import type { Update } from "telegraf/types";
import { createBot, type CreateBotOptions } from "@/bot";
import { LocalBotApi, type ApiAnswer, type LocalUser, type RecordedCall as LocalCall } from "@/bot/local-bot-api";
import { projectRoot } from "@/lib/config/env";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import type { BotContext } from "@/bot/context";
import { keepOutput } from "./process-logs";
import { suiteDatabaseUrl } from "./suite";

export { buttonsOf, plain } from "@/bot/local-bot-api";
export type FakeUser = LocalUser;

/** A call the bot made, read by the tests as untyped JSON. */
export interface RecordedCall extends LocalCall {
  payload: Record<string, any>;
  response?: any;
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

export interface FakeWebhook {
  url: string;
  secretToken?: string;
  allowedUpdates?: string[];
}

export interface WebhookDelivery {
  status: number;
  body: string;
}

export class FakeTelegram extends LocalBotApi<RecordedCall> {
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
  private longPollMs = 300;

  static async start(options: { longPollMs?: number; firstUpdateId?: number } = {}): Promise<FakeTelegram> {
    const fake = await FakeTelegram.listen({ firstUpdateId: options.firstUpdateId });
    fake.longPollMs = options.longPollMs ?? 300;
    return fake;
  }

  // ---- building updates ----------------------------------------------------------------------

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

  protected override takeOver(
    method: string,
    payload: Record<string, any>,
    res: http.ServerResponse,
    reply: (answer: ApiAnswer) => void,
  ): boolean {
    if (method !== "getUpdates") return false;
    if (this.webhook) {
      reply({
        status: 409,
        body: {
          ok: false,
          error_code: 409,
          description:
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        },
      });
      return true;
    }
    this.getUpdatesCount++;
    this.getUpdates(payload, res, (updates) => reply({ status: 200, body: { ok: true, result: updates } }));
    return true;
  }

  protected override answer(method: string, payload: Record<string, any>): ApiAnswer {
    const failure = this.failures.indexOf(method);
    if (failure >= 0) {
      this.failures.splice(failure, 1);
      return { status: 400, body: { ok: false, error_code: 400, description: "Bad Request: injected failure" } };
    }
    switch (method) {
      case "setWebhook": {
        if (typeof payload.url !== "string" || !/^https?:\/\//.test(payload.url)) {
          return {
            status: 400,
            body: {
              ok: false,
              error_code: 400,
              description: "Bad Request: bad webhook: an HTTPS URL must be provided for webhook",
            },
          };
        }
        if (payload.secret_token !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(payload.secret_token)) {
          return {
            status: 400,
            body: {
              ok: false,
              error_code: 400,
              description: "Bad Request: secret token contains unallowed characters",
            },
          };
        }
        this.webhook = { url: payload.url, secretToken: payload.secret_token, allowedUpdates: payload.allowed_updates };
        return { status: 200, body: { ok: true, result: true } };
      }
      case "deleteWebhook":
        this.webhook = undefined;
        return { status: 200, body: { ok: true, result: true } };
      case "getWebhookInfo":
        return {
          status: 200,
          body: {
            ok: true,
            result: {
              url: this.webhook?.url ?? "",
              has_custom_certificate: false,
              pending_update_count: 0,
              allowed_updates: this.webhook?.allowedUpdates,
            },
          },
        };
      case "sendMessage":
        if (this.blockedChats.has(Number(payload.chat_id))) {
          return {
            status: 403,
            body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" },
          };
        }
        return super.answer(method, payload);
      default:
        return super.answer(method, payload);
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

  override async close(): Promise<void> {
    if (this.poller) {
      clearTimeout(this.poller.timer);
      this.poller = undefined;
    }
    await super.close();
  }
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
  keepOutput(script, child);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
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
    DATABASE_URL: suiteDatabaseUrl(),
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
