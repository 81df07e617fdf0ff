// Acceptance 1: a new user goes from /start to a working API key through the real bot against a
// local Bot API server, an admin funds the wallet with /credit + Confirm, and the public API then
// honours the key from the allowed IP and refuses it from anywhere else. Run once per mode: long
// polling, and webhook mode (the web server's /api/telegram/webhook, registered by the command).
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import { BOT_MODES, buttonsOf, plain, type FakeUser } from "../helpers/fake-telegram";

const ADMIN: FakeUser = { id: 4_100_000_001, first_name: "Ada", username: "ada_admin" };
const ALICE: FakeUser = { id: 4_100_000_002, first_name: "Alice", last_name: "Reseller", username: "alice_reseller" };

describe.each(BOT_MODES)("in %s mode", (mode) => {
  const bot = useBotHarness({ mode, admins: [ADMIN] });
  const { messageTo } = bot;

  describe("a new account holder, end to end", () => {
    let apiKey = "";
    let accountId = 0;

    it("/start registers the Telegram user and says what to do next", async () => {
      const reply = plain(messageTo(await bot.fake.send(ALICE, "/start"), ALICE).payload.text);
      const account = await sqlRow(
        `SELECT id, telegram_username, display_name, api_enabled, balance_cents FROM accounts WHERE telegram_id = $1`,
        [ALICE.id],
      );
      expect(account).toMatchObject({
        telegram_username: "alice_reseller",
        display_name: "Alice Reseller",
        api_enabled: false,
        balance_cents: 0,
      });
      accountId = account.id;
      expect(reply).toContain(`Welcome! Your account #${accountId} is ready.`);
      expect(reply).toContain("/newkey");
      expect(reply).toContain("/api on");
    });

    it("/newkey shows the key once; the database keeps only its hash and prefix", async () => {
      const message = messageTo(await bot.fake.send(ALICE, "/newkey"), ALICE);
      const found = /<code>(svc_[A-Za-z0-9]{40})<\/code>/.exec(message.payload.text);
      expect(found, message.payload.text).not.toBeNull();
      apiKey = found?.[1] ?? "";
      const keys = await sql(`SELECT key_hash, prefix, revoked_at FROM api_keys WHERE account_id = $1`, [accountId]);
      expect(keys).toEqual([
        {
          key_hash: crypto.createHash("sha256").update(apiKey).digest("hex"),
          prefix: apiKey.slice(0, 12),
          revoked_at: null,
        },
      ]);
      // The plain key is nowhere in the database, the audit log included.
      const dump = await sql(
        `SELECT (SELECT json_agg(a)::text FROM audit_log a) AS audit, (SELECT json_agg(k)::text FROM api_keys k) AS keys`,
      );
      expect(`${dump[0]!.audit}${dump[0]!.keys}`).not.toContain(apiKey);
    });

    it("/keys afterwards shows only the prefix", async () => {
      const text = messageTo(await bot.fake.send(ALICE, "/keys"), ALICE).payload.text;
      expect(text).toContain(apiKey.slice(0, 12));
      expect(text).not.toContain(apiKey);
      expect(plain(text)).toContain("last used never");
    });

    it("/api on turns API access on", async () => {
      const reply = messageTo(await bot.fake.send(ALICE, "/api on"), ALICE).payload.text;
      expect(reply).toBe("API access is now on.");
      expect((await sqlRow(`SELECT api_enabled FROM accounts WHERE id = $1`, [accountId])).api_enabled).toBe(true);
    });

    it("/ip add allows the test machine's address (the API sees 127.0.0.1)", async () => {
      const reply = plain(messageTo(await bot.fake.send(ALICE, "/ip add 127.0.0.1"), ALICE).payload.text);
      expect(reply).toContain(`Added 127.0.0.1/32 to key ${apiKey.slice(0, 12)}`);
      expect(
        await sql(
          `SELECT e.cidr FROM ip_allow_entries e JOIN api_keys k ON k.id = e.api_key_id WHERE k.account_id = $1`,
          [accountId],
        ),
      ).toEqual([{ cidr: "127.0.0.1/32" }]);
    });

    it("an admin /credit asks for confirmation and moves no money yet", async () => {
      const summary = messageTo(await bot.fake.send(ADMIN, "/credit @alice_reseller 25.50 first deposit"), ADMIN);
      expect(plain(summary.payload.text)).toContain(
        `Credit $25.50 to account #${accountId} @alice_reseller (Alice Reseller)`,
      );
      expect(plain(summary.payload.text)).toContain("Note: first deposit");
      const buttons = buttonsOf(summary);
      expect(buttons.map(([text]) => text)).toEqual(["✅ Confirm credit", "Cancel"]);
      expect(await sql(`SELECT count(*)::int AS n FROM ledger_entries`)).toEqual([{ n: 0 }]);
      expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents).toBe(0);

      const calls = await bot.fake.press(ADMIN, buttons[0]![1], summary.response.message_id);
      expect(calls.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe("Credited");
      const edited = calls.find((call) => call.method === "editMessageText");
      expect(plain(edited!.payload.text)).toContain(`Credited $25.50 to account #${accountId}`);
      expect(buttonsOf(edited)).toEqual([]); // the buttons are gone
      // The holder is told.
      expect(plain(messageTo(calls, ALICE).payload.text)).toContain("Your wallet was credited with $25.50.");

      const ledger = await sql(
        `SELECT kind, amount_cents, balance_after_cents, actor, reason, audit_log_id FROM ledger_entries WHERE account_id = $1`,
        [accountId],
      );
      expect(ledger).toEqual([
        {
          kind: "credit",
          amount_cents: 2550,
          balance_after_cents: 2550,
          actor: `telegram:${ADMIN.id}`,
          reason: "first deposit",
          audit_log_id: expect.any(Number),
        },
      ]);
      const audit = await sqlRow(`SELECT actor, action, target_id FROM audit_log WHERE id = $1`, [
        ledger[0]!.audit_log_id,
      ]);
      expect(audit).toEqual({ actor: `telegram:${ADMIN.id}`, action: "wallet.credit", target_id: String(accountId) });
      expect(await sql(`SELECT status FROM admin_action_requests`)).toEqual([{ status: "confirmed" }]);
    });

    it("the key works from the allowed IP and /balance shows the credit", async () => {
      const res = await api("/balance", { key: apiKey });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toEqual({ success: true, balanceUsd: 25.5, currency: "USD", livemode: true });
      expect(plain(messageTo(await bot.fake.send(ALICE, "/balance"), ALICE).payload.text)).toBe(
        "Balance: $25.50\nTest balance: $0.00 (play money, /testcredit)",
      );
    });

    it("with only another address on the list, the same call gets IP_NOT_ALLOWED", async () => {
      await bot.fake.send(ALICE, "/ip add 203.0.113.7");
      const removed = plain(messageTo(await bot.fake.send(ALICE, "/ip remove 127.0.0.1"), ALICE).payload.text);
      expect(removed).toContain("Removed 127.0.0.1/32");
      expect(removed).toContain("203.0.113.7/32");
      const res = await api("/balance", { key: apiKey });
      expect(res.status, res.text).toBe(403);
      expect(res.json).toMatchObject({ success: false, code: "IP_NOT_ALLOWED", error: expect.any(String) });
    });

    it("never showed the plain key in any message but the /newkey reply", () => {
      const showing = bot.fake.calls.filter((call) => JSON.stringify(call.payload).includes(apiKey));
      expect(showing).toHaveLength(1);
      expect(plain(showing[0]!.payload.text)).toContain("shown only this once");
    });
  });
});
