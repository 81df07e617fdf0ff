// Acceptance 2: Telegram redelivers updates, admins double-tap, and two bot processes can race.
// Each update id is handled once, and a credit is made once however often Confirm arrives. Run
// once per mode: long polling, and webhook mode (updates POSTed to the web server, concurrently).
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { confirmWalletAdjustment } from "@/lib/wallet/confirm-wallet-adjustment";
import { requestWalletAdjustment } from "@/lib/wallet/request-wallet-adjustment";
import { createBot } from "@/bot";
import { useBotHarness } from "../helpers/bot-harness";
import { firstOf, sql, sqlRow } from "../helpers/db";
import { BOT_MODES, buttonsOf, plain, type FakeUser, type RecordedCall } from "../helpers/fake-telegram";

const ADMIN: FakeUser = { id: 4_200_000_001, first_name: "Ada", username: "ada_admin" };
const BOB: FakeUser = { id: 4_200_000_002, first_name: "Bob", username: "bob_shop" };

describe.each(BOT_MODES)("in %s mode", (mode) => {
  const bot = useBotHarness({ mode, admins: [ADMIN] });
  let bobAccountId: number;

  beforeAll(async () => {
    await bot.fake.send(BOB, "/start");
    bobAccountId = await bot.accountIdOf(BOB);
  });

  async function money() {
    const row = await sqlRow(
      `SELECT (SELECT balance_cents FROM accounts WHERE id = $1) AS balance,
              (SELECT count(*)::int FROM ledger_entries WHERE account_id = $1) AS entries,
              (SELECT coalesce(sum(amount_cents), 0)::int FROM ledger_entries WHERE account_id = $1) AS ledger_sum`,
      [bobAccountId],
    );
    return row as { balance: number; entries: number; ledger_sum: number };
  }

  function summaryOf(calls: RecordedCall[]): RecordedCall {
    const summaries = calls.filter(
      (call) =>
        call.method === "sendMessage" && Number(call.payload.chat_id) === ADMIN.id && buttonsOf(call).length === 2,
    );
    expect(summaries).toHaveLength(1);
    return firstOf(summaries);
  }

  describe("the same update delivered more than once", () => {
    let before: Awaited<ReturnType<typeof money>>;
    beforeEach(async () => {
      before = await money();
    });

    it("a redelivered /credit makes one request and one summary; its Confirm, pressed twice, credits once", async () => {
      const update = bot.fake.message(ADMIN, "/credit @bob_shop 10 redelivery test");
      const mark = bot.fake.calls.length;
      await bot.fake.deliver(update);
      await bot.fake.redeliver(update); // Telegram sends the very same update again
      const calls = bot.fake.calls.slice(mark);
      const summary = summaryOf(calls);
      expect(calls).toHaveLength(1); // the second copy did nothing at all
      expect(await sql(`SELECT count(*)::int AS n FROM admin_action_requests WHERE note = 'redelivery test'`)).toEqual([
        { n: 1 },
      ]);
      expect(
        await sql(`SELECT update_id FROM processed_telegram_updates WHERE update_id = $1`, [update.update_id]),
      ).toEqual([{ update_id: update.update_id }]);

      const confirm = buttonsOf(summary)[0]![1];
      const first = await bot.fake.press(ADMIN, confirm, summary.response.message_id);
      expect(first.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe("Credited");
      // A second, separate press of the same button (a new update id): refused, nothing moves.
      const second = await bot.fake.press(ADMIN, confirm, summary.response.message_id);
      expect(second.map((call) => call.method)).toEqual(["answerCallbackQuery"]);
      expect(second[0]!.payload.text).toBe("This credit of $10.00 was already confirmed.");

      const after = await money();
      expect(after.entries).toBe(before.entries + 1);
      expect(after.balance).toBe(before.balance + 1000);
      expect(after.ledger_sum).toBe(after.balance);
      expect(bot.fake.textsTo(BOB.id).filter((text) => text.includes("credited with <b>$10.00</b>"))).toHaveLength(1);
    });

    it("a redelivered Confirm update is skipped outright", async () => {
      const summary = summaryOf(await bot.fake.send(ADMIN, "/credit #" + bobAccountId + " 3.25"));
      const press = bot.fake.callback(ADMIN, buttonsOf(summary)[0]![1], summary.response.message_id);
      await bot.fake.deliver(press);
      const mark = bot.fake.calls.length;
      await bot.fake.redeliver(press);
      await bot.fake.redeliver(press);
      expect(bot.fake.calls.slice(mark)).toEqual([]);
      const after = await money();
      expect(after.balance).toBe(before.balance + 325);
      expect(after.entries).toBe(before.entries + 1);
    });

    it("two copies of Confirm in one getUpdates batch (handled concurrently) credit once", async () => {
      const summary = summaryOf(await bot.fake.send(ADMIN, `/credit ${bobAccountId} 7`));
      const data = buttonsOf(summary)[0]![1];
      const press = bot.fake.callback(ADMIN, data, summary.response.message_id);
      const otherPress = bot.fake.callback(ADMIN, data, summary.response.message_id);
      // The same update twice plus a second tap, all in one batch: Telegraf runs them in parallel.
      await bot.fake.deliver(press, structuredClone(press), otherPress);
      const after = await money();
      expect(after.balance).toBe(before.balance + 700);
      expect(after.entries).toBe(before.entries + 1);
      expect(
        await sql(`SELECT count(*)::int AS n FROM processed_telegram_updates WHERE update_id = ANY($1)`, [
          [press.update_id, otherPress.update_id],
        ]),
      ).toEqual([{ n: 2 }]);
    });

    it("after a restart the new bot process skips updates the old one handled", async () => {
      const creditUpdate = bot.fake.message(ADMIN, `/credit ${bobAccountId} 1.50 restart test`);
      await bot.fake.deliver(creditUpdate);
      const summary = bot.fake.calls
        .filter((call) => call.method === "sendMessage" && call.payload.text.includes("restart test"))
        .at(-1)!;
      const press = bot.fake.callback(ADMIN, buttonsOf(summary)[0]![1], summary.response.message_id);
      await bot.fake.deliver(press);
      // A new process (a new web server in webhook mode): nothing in memory; only the database remembers.
      await bot.restart();
      const mark = bot.fake.calls.length;
      await bot.fake.redeliver(creditUpdate, press);
      expect(bot.fake.calls.slice(mark)).toEqual([]);
      expect(await sql(`SELECT count(*)::int AS n FROM admin_action_requests WHERE note = 'restart test'`)).toEqual([
        { n: 1 },
      ]);
      const after = await money();
      expect(after.balance).toBe(before.balance + 150);
      expect(after.entries).toBe(before.entries + 1);
    });
  });

  describe("racing confirmations", () => {
    it("two bot instances handling the same update concurrently: one handles it", async () => {
      // A second bot (as in a second process) fed the same update through handleUpdate, in parallel.
      const one = createBot(bot.fake.token, { apiRoot: bot.fake.apiRoot });
      const other = createBot(bot.fake.token, { apiRoot: bot.fake.apiRoot });
      const update = bot.fake.message(ADMIN, `/credit ${bobAccountId} 2 two instances`);
      await Promise.all([one.handleUpdate(structuredClone(update)), other.handleUpdate(structuredClone(update))]);
      expect(await sql(`SELECT count(*)::int AS n FROM admin_action_requests WHERE note = 'two instances'`)).toEqual([
        { n: 1 },
      ]);
    });

    it("many concurrent confirms of one request: exactly one credits", async () => {
      const before = await money();
      const requested = await requestWalletAdjustment({
        kind: "credit",
        accountId: bobAccountId,
        amountCents: 999,
        note: "race",
        adminTelegramId: ADMIN.id,
        adminUserId: 1,
        actor: `telegram:${ADMIN.id}`,
      });
      if (requested.status !== "requested") throw new Error(requested.status);
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          confirmWalletAdjustment({
            token: requested.request.token,
            adminTelegramId: ADMIN.id,
            adminUserId: 1,
            actor: `telegram:${ADMIN.id}`,
          }),
        ),
      );
      expect(results.filter((result) => result.status === "confirmed")).toHaveLength(1);
      expect(results.filter((result) => result.status === "already_resolved")).toHaveLength(7);
      const after = await money();
      expect(after.balance).toBe(before.balance + 999);
      expect(after.entries).toBe(before.entries + 1);
      expect(
        await sql(`SELECT status, resolved_at IS NOT NULL AS resolved FROM admin_action_requests WHERE id = $1`, [
          requested.request.id,
        ]),
      ).toEqual([{ status: "confirmed", resolved: true }]);
    });

    it("Cancel then Confirm: nothing is credited", async () => {
      const before = await money();
      const summary = summaryOf(await bot.fake.send(ADMIN, `/credit ${bobAccountId} 50 cancel me`));
      const [[, confirm], [, cancel]] = buttonsOf(summary) as [[string, string], [string, string]]; // the summary has two buttons
      const cancelled = await bot.fake.press(ADMIN, cancel, summary.response.message_id);
      expect(plain(cancelled.find((call) => call.method === "editMessageText")!.payload.text)).toContain(
        "Cancelled: nothing was credited",
      );
      const late = await bot.fake.press(ADMIN, confirm, summary.response.message_id);
      expect(late.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe(
        "This credit of $50.00 was already cancelled.",
      );
      expect(await money()).toEqual(before);
    });
  });
});
