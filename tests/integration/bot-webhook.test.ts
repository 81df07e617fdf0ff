// Webhook mode: only Telegram, proven by the secret registered with setWebhook, gets an update in;
// a forged one (no secret, a wrong one) is refused as JSON and changes nothing. The registration
// command, the mode switch (no polling beside a webhook), and the quick answer. The bot's own
// behaviour in webhook mode is covered by bot-acceptance and bot-exactly-once, run in both modes.
import { fork } from "node:child_process";
import path from "node:path";
import { Telegraf } from "telegraf";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { createTelegramWebhookHandler, requireWebhookSecret, webhookUrlFor } from "@/bot/webhook";
import type { BotContext } from "@/bot/context";
import { api } from "../helpers/api";
import { useBotHarness } from "../helpers/bot-harness";
import { sqlRow } from "../helpers/db";
import type { FakeUser } from "../helpers/fake-telegram";
import { TEST_ENV } from "../setup/test-env";
import { keepOutput } from "../helpers/process-logs";
import { suiteDatabaseUrl } from "../helpers/suite";

const MALLORY: FakeUser = { id: 4_300_000_001, first_name: "Mallory", username: "mallory" };

const harness = useBotHarness({ mode: "webhook" });

function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = fork(path.join(projectRoot, "scripts", script), args, {
    env: { ...process.env, ...TEST_ENV, ...env },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  keepOutput(script, child);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  child.on("message", (message: { type?: string }) => {
    // A server that listens when it should have refused to start: stop it, the test reports it.
    if (message?.type === "listening") child.kill("SIGTERM");
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
}

async function traces(updateId: number) {
  const row = await sqlRow(
    `SELECT (SELECT count(*)::int FROM processed_telegram_updates WHERE update_id = $1) AS processed,
            (SELECT count(*)::int FROM accounts WHERE telegram_id = $2) AS accounts,
            (SELECT count(*)::int FROM audit_log) AS audit`,
    [updateId, MALLORY.id],
  );
  return row;
}

describe("POST /api/telegram/webhook", () => {
  it("the command registered the webhook with the secret and the update types the bot handles", () => {
    expect(harness.fake.webhook).toEqual({
      url: `${harness.running.baseUrl}/api/telegram/webhook`,
      secretToken: harness.running.secret,
      allowedUpdates: ["message", "callback_query"],
    });
  });

  it.each([
    ["without the secret header", null],
    ["with a wrong secret", "x".repeat(48)],
    ["with the secret's prefix", "PREFIX"],
    ["with an empty secret", ""],
  ])("refuses a forged update %s, and nothing changes", async (_name, forged) => {
    const update = harness.fake.message(MALLORY, "/start");
    const secretToken = forged === "PREFIX" ? harness.running.secret.slice(0, -1) : forged;
    const mark = harness.fake.calls.length;
    const answer = await harness.fake.postUpdate(update, { secretToken });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({
      success: false,
      error: "Telegram webhook secret token missing or wrong",
      code: "TELEGRAM_WEBHOOK_FORBIDDEN",
    });
    expect(await traces(update.update_id)).toEqual({ processed: 0, accounts: 0, audit: 0 });
    expect(harness.fake.calls.slice(mark)).toEqual([]);
  });

  it("takes the same update from Telegram with the secret", async () => {
    const update = harness.fake.message(MALLORY, "/start");
    const answer = await harness.fake.postUpdate(update);
    expect(answer.status).toBe(200);
    expect(await traces(update.update_id)).toMatchObject({ processed: 1, accounts: 1 });
    expect(harness.fake.textsTo(MALLORY.id).at(-1)).toContain("Welcome!");
  });

  it("refuses a body that is not an update, and a GET, as JSON", async () => {
    const url = `${harness.running.baseUrl}/api/telegram/webhook`;
    const headers = { "content-type": "application/json", "x-telegram-bot-api-secret-token": harness.running.secret };
    const notUpdate = await fetch(url, { method: "POST", headers, body: JSON.stringify({ hello: "world" }) });
    expect(notUpdate.status).toBe(400);
    expect((await notUpdate.json()).error).toBe("INVALID BODY");
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect((await get.json()).code).toBe("METHOD_NOT_ALLOWED");
  });

  it("is a 404 on a server without TELEGRAM_WEBHOOK_SECRET (webhook mode off)", async () => {
    const res = await api("/api/telegram/webhook", {
      body: harness.fake.message(MALLORY, "/help"),
      headers: { "x-telegram-bot-api-secret-token": harness.running.secret },
    });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ success: false, code: "NOT_FOUND" });
  });
});

describe("the mode switch and the command", () => {
  const env = () => ({
    TELEGRAM_BOT_TOKEN: harness.fake.token,
    TELEGRAM_API_ROOT: harness.fake.apiRoot,
    TELEGRAM_WEBHOOK_SECRET: harness.running.secret,
  });

  it("npm run bot refuses to poll while TELEGRAM_WEBHOOK_SECRET is set, and leaves the webhook alone", async () => {
    const mark = harness.fake.calls.length;
    const result = await runScript("bot.ts", [], { ...env(), DATABASE_URL: suiteDatabaseUrl() });
    expect(result.code).toBe(1);
    expect(result.output).toContain("TELEGRAM_WEBHOOK_SECRET is set: updates arrive by webhook");
    expect(harness.fake.calls.slice(mark)).toEqual([]);
    expect(harness.fake.webhook?.url).toBe(`${harness.running.baseUrl}/api/telegram/webhook`);
  });

  it("refuses a secret Telegram would refuse or one too short to guard anything", async () => {
    const result = await runScript("bot-webhook.ts", ["https://bot.example.com"], {
      ...env(),
      TELEGRAM_WEBHOOK_SECRET: "short",
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain("TELEGRAM_WEBHOOK_SECRET must be 32 to 256 characters");
    expect(() => requireWebhookSecret("a".repeat(31))).toThrow();
    expect(() => requireWebhookSecret(`${"a".repeat(40)}!`)).toThrow();
    expect(requireWebhookSecret("A-z_0".repeat(8))).toBe("A-z_0".repeat(8));
  });

  it("a web server with a weak secret does not start, and says why", async () => {
    const result = await runScript("serve.ts", [], {
      ...env(),
      TELEGRAM_WEBHOOK_SECRET: "guessable",
      DATABASE_URL: suiteDatabaseUrl(),
      PORT: "0",
      HOST: "127.0.0.1",
      SERVE_DASHBOARD: "0",
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain("TELEGRAM_WEBHOOK_SECRET must be 32 to 256 characters");
    expect(result.output).not.toContain("listening");
  });

  it("builds the webhook URL from the public base URL", () => {
    expect(webhookUrlFor("https://bot.example.com")).toBe("https://bot.example.com/api/telegram/webhook");
    expect(webhookUrlFor("https://bot.example.com/")).toBe("https://bot.example.com/api/telegram/webhook");
    expect(webhookUrlFor("https://example.com/svc")).toBe("https://example.com/svc/api/telegram/webhook");
    expect(webhookUrlFor("https://bot.example.com/api/telegram/webhook")).toBe(
      "https://bot.example.com/api/telegram/webhook",
    );
    expect(() => webhookUrlFor("bot.example.com")).toThrow("is not a URL");
  });

  it("--info shows the registration and --delete removes it (back to polling)", async () => {
    const info = await runScript("bot-webhook.ts", ["--info"], env());
    expect(info.code).toBe(0);
    expect(info.output).toContain(`${harness.running.baseUrl}/api/telegram/webhook`);
    const deleted = await runScript("bot-webhook.ts", ["--delete"], env());
    expect(deleted.code, deleted.output).toBe(0);
    expect(harness.fake.webhook).toBeUndefined();
  });
});

describe("answering Telegram", () => {
  it("answers once the update is handled, or after answerWithinMs while a slow handler goes on", async () => {
    const bot = new Telegraf<BotContext>(harness.fake.token, { telegram: { apiRoot: harness.fake.apiRoot } });
    // Known already, as prepareTelegramWebhook makes it at start: the update goes straight in.
    bot.botInfo = {
      ...harness.fake.botUser,
      can_join_groups: false,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    } as typeof bot.botInfo;
    let started = false;
    let finished = false;
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    bot.use(async () => {
      started = true;
      await blocked;
      finished = true;
    });
    const secret = "s".repeat(40);
    const handler = createTelegramWebhookHandler({ bot, secret, answerWithinMs: 50 });
    const request = new Request("http://localhost/api/telegram/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
      body: JSON.stringify(harness.fake.message(MALLORY, "slow")),
    });
    const answer = await handler(request);
    expect(answer.status).toBe(200);
    expect(started).toBe(true);
    expect(finished).toBe(false); // answered while the handler was still at work
    release();
    await expect.poll(() => finished).toBe(true);
  });
});
