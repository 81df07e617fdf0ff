// The set-up every bot test shares: a clean database, the local Bot API server (fake-telegram.ts)
// and the real bot against it, started before the tests of the file or describe block that calls
// useBotHarness and stopped after them; plus the few ways those tests read the bot's replies.
//
// Hooks a file registers before calling useBotHarness run before the bot starts (and their
// afterAll after it stops); those registered after it run once the bot is up.
import { afterAll, beforeAll, expect } from "vitest";
import type { AdminRole } from "@/lib/admin-users/admin-role";
import { closeSql, firstOf, resetDatabase, sqlRow } from "./db";
import { createLinkedAdmin } from "./telegram-admins";
import {
  FakeTelegram,
  plain,
  startBot,
  startWebhookBot,
  type BotMode,
  type FakeUser,
  type RecordedCall,
  type RunningBot,
  type RunningWebhookBot,
} from "./fake-telegram";

export interface BotHarness<R extends RunningBot = RunningBot> {
  /** The local Bot API server; set once the harness's beforeAll has run. */
  readonly fake: FakeTelegram;
  /** The bot under test; set once the harness's beforeAll has run. */
  readonly running: R;
  /** The one message the bot sent `user` among `calls`; the test fails if there is not exactly one. */
  messageTo(calls: RecordedCall[], user: FakeUser): RecordedCall;
  /** That one message as the user reads it. */
  replyText(calls: RecordedCall[], user: FakeUser): string;
  /** Sends `text` as `user` and returns the bot's one reply to them, as the user reads it. */
  say(user: FakeUser, text: string): Promise<string>;
  /** The account `user` registered with /start. */
  accountIdOf(user: FakeUser): Promise<number>;
  /** Stops the bot and starts a new one (a new process, or a new web server in webhook mode): nothing in memory survives. */
  restart(): Promise<void>;
}

export interface BotHarnessOptions {
  /** Long polling (the default) or webhook mode, where the bot runs in the web server. */
  mode?: BotMode;
  /**
   * Telegram users linked to admin users (owners with two-factor, unless a role is given), created
   * after the database is reset and before the bot starts.
   */
  admins?: Array<FakeUser | { user: FakeUser; role: AdminRole }>;
  /** ADMIN_TELEGRAM_IDS of the bot: bootstrap ids, which grant no command. */
  bootstrapIds?: FakeUser[];
}

export function useBotHarness(options: BotHarnessOptions & { mode: "webhook" }): BotHarness<RunningWebhookBot>;
export function useBotHarness(options?: BotHarnessOptions): BotHarness;
export function useBotHarness(options: BotHarnessOptions = {}): BotHarness<RunningBot> {
  let fake: FakeTelegram | undefined;
  let running: RunningBot | undefined;

  const launch = (telegram: FakeTelegram) => {
    const botOptions = { adminTelegramIds: (options.bootstrapIds ?? []).map((user) => String(user.id)) };
    return options.mode === "webhook"
      ? startWebhookBot(telegram, botOptions)
      : startBot(telegram, options.mode ?? "polling", botOptions);
  };

  beforeAll(async () => {
    await resetDatabase();
    for (const entry of options.admins ?? []) {
      const { user, role } = "user" in entry ? entry : { user: entry, role: "owner" as const };
      await createLinkedAdmin(user, role);
    }
    fake = await FakeTelegram.start();
    running = await launch(fake);
  });

  afterAll(async () => {
    await running?.stop();
    await fake?.close();
    await closeSql();
  });

  const harness: BotHarness = {
    get fake() {
      if (!fake) throw new Error("the fake Bot API is not started yet: use it inside a test or a later hook");
      return fake;
    },
    get running() {
      if (!running) throw new Error("the bot is not started yet: use it inside a test or a later hook");
      return running;
    },
    messageTo(calls, user) {
      const messages = calls.filter(
        (call) => call.method === "sendMessage" && Number(call.payload.chat_id) === user.id,
      );
      expect(messages, JSON.stringify(calls)).toHaveLength(1);
      return firstOf(messages);
    },
    replyText(calls, user) {
      return plain(harness.messageTo(calls, user).payload.text);
    },
    async say(user, text) {
      return harness.replyText(await harness.fake.send(user, text), user);
    },
    async accountIdOf(user) {
      return (await sqlRow(`SELECT id FROM accounts WHERE telegram_id = $1`, [user.id])).id;
    },
    async restart() {
      await harness.running.stop();
      running = undefined;
      running = await launch(harness.fake);
    },
  };
  return harness;
}
