// `npm run bot:console` as a developer runs it, without a Telegram bot token: real processes typed
// into through stdin, as a holder (/start, /newkey, /api on) and as an admin (/credit, then its
// Confirm button pressed by label; --admin links the user to a development owner). The replies are
// read from stdout; the money, the key and the audit trail from the database and the API itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotConsole } from "../helpers/bot-console";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { TEST_ENV } from "../setup/test-env";
import { suiteBaseUrl, suiteDatabaseUrl } from "../helpers/suite";

const HOLDER = { id: 810_001, username: "console_alice" };
const ADMIN = { id: 810_002, username: "console_boss" };

const consoles: BotConsole[] = [];
const open = (args: string[], env: Record<string, string> = {}) => {
  const opened = new BotConsole(args, { ...process.env, ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl(), ...env });
  consoles.push(opened);
  return opened;
};

beforeAll(resetDatabase);
afterAll(async () => {
  for (const opened of consoles) if (opened.child.exitCode === null) opened.child.kill("SIGTERM");
  await closeSql();
});

describe("npm run bot:console", () => {
  it("a holder registers and takes a key, an admin credits them with Confirm: once, in the ledger and the audit log", async () => {
    const holder = open(["--as", String(HOLDER.id), "--username", HOLDER.username]);
    const welcome = await holder.type("/start", "/help lists every command.");
    const accountId = Number(welcome.match(/Your account #(\d+) is ready/)?.[1]);
    expect(accountId, welcome).toBeGreaterThan(0);
    // HTML rendered for reading: no tags, entities decoded.
    expect(welcome).not.toMatch(/<\/?b>|&lt;|&gt;/);

    const issued = await holder.type("/newkey", "Delete this message once the key is stored safely.");
    const key = issued.match(/svc_[A-Za-z0-9]{40}/)?.[0];
    expect(key, issued).toBeDefined();
    expect(issued).toContain("Tip: /ip add <your server's IP>");
    await holder.type("/api on", "on");
    // Test mode without an admin: a test key and play money.
    const issuedTest = await holder.type("/newkey test", "Delete this message once the key is stored safely.");
    const testKey = issuedTest.match(/svc_test_[A-Za-z0-9]{40}/)?.[0];
    expect(testKey, issuedTest).toBeDefined();
    expect(await holder.type("/testcredit 50", "test balance")).toContain("test balance $50.00");
    const keys = await sql(
      `SELECT prefix, livemode FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id`,
      [accountId],
    );
    expect(keys).toEqual([
      { prefix: key!.slice(0, 12), livemode: true },
      { prefix: testKey!.slice(0, 17), livemode: false },
    ]);

    const admin = open(["--as", String(ADMIN.id), "--admin", "--username", ADMIN.username]);
    // The buttons are printed after the message's text: wait for them.
    const request = await admin.type(`/credit @${HOLDER.username} 50`, /\[2\] Cancel/);
    expect(request).toContain(`Credit $50.00 to account #${accountId} @${HOLDER.username}`);
    expect(request).toMatch(/\[1\] ✅ Confirm credit\s+\[2\] Cancel/);
    // Nothing moves before Confirm.
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents).toBe(0);

    const confirmed = await admin.type("Confirm", "New balance:");
    expect(confirmed).toContain('(you press "✅ Confirm credit")');
    expect(confirmed).toContain(`✅ Credited $50.00 to account #${accountId}`);
    expect(confirmed).toContain(`bot → user ${HOLDER.id}: 💰 Your wallet was credited with $50.00.`);
    // The buttons went with the edit: "1" is now a plain message, not a second press.
    const plainOne = await admin.type("1", /^(bot: |\(no reply\))/m);
    expect(plainOne).not.toContain("you press");

    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents).toBe(5000);
    const ledger = await sql(
      `SELECT kind, amount_cents, actor, audit_log_id FROM ledger_entries WHERE account_id = $1`,
      [accountId],
    );
    expect(ledger).toEqual([
      { kind: "credit", amount_cents: 5000, actor: `telegram:${ADMIN.id}`, audit_log_id: expect.any(Number) },
    ]);
    const audit = await sql(
      `SELECT id, actor, action FROM audit_log WHERE target_type = 'account' AND target_id = $1 ORDER BY id`,
      [String(accountId)],
    );
    expect(audit.map((row) => [row.actor, row.action])).toEqual([
      [`telegram:${HOLDER.id}`, "account.register"],
      [`telegram:${HOLDER.id}`, "account.api_on"],
      [`telegram:${ADMIN.id}`, "wallet.credit_requested"],
      [`telegram:${ADMIN.id}`, "wallet.credit"],
    ]);
    expect(audit.find((row) => row.action === "wallet.credit")?.id).toBe(ledger[0]!.audit_log_id);

    // The holder's own session sees the money, and so does the API with the key /newkey printed.
    expect(await holder.type("/balance", "Test balance")).toMatch(/Balance: \$50\.00\s+Test balance: \$50\.00/);
    const balance = await fetch(`${suiteBaseUrl()}/balance`, { headers: { "x-api-key": key! } });
    expect(await balance.json()).toEqual({ success: true, balanceUsd: 50, currency: "USD", livemode: true });
    const testBalance = await fetch(`${suiteBaseUrl()}/balance`, { headers: { "x-api-key": testKey! } });
    expect(await testBalance.json()).toEqual({ success: true, balanceUsd: 50, currency: "USD", livemode: false });

    // --admin linked the user to a development owner with two-factor on, so owner commands work too.
    expect(await admin.type("/tier", /^bot: /m)).toContain("Usage: /tier <account> <tier|none>");
    expect(
      await sql(
        `SELECT u.email, u.role, u.totp_enabled_at IS NOT NULL AS two_factor
           FROM admin_telegram_links l JOIN admin_users u ON u.id = l.admin_user_id WHERE l.telegram_id = $1`,
        [ADMIN.id],
      ),
    ).toEqual([{ email: `console-${ADMIN.id}@bot-console.invalid`, role: "owner", two_factor: true }]);

    expect(await holder.leave()).toBe(0);
    expect(await admin.leave()).toBe(0);
  }, 180_000);

  it("without --admin, /credit is refused", async () => {
    const stranger = open(["--as", "810003"]);
    await stranger.type("/start", "/help lists every command.");
    const refused = await stranger.type(`/credit @${HOLDER.username} 5`, /^bot: /m);
    expect(refused).not.toContain("Confirm within");
    expect(await stranger.leave()).toBe(0);
  }, 120_000);

  it("is refused with NODE_ENV=production, before it touches anything", async () => {
    const refused = open(["--as", "810004", "--admin"], { NODE_ENV: "production" });
    expect(await refused.exited()).toBe(1);
    expect(refused.errors).toContain("[bot:console] refused: NODE_ENV=production");
    expect(await sql(`SELECT 1 FROM accounts WHERE telegram_id = 810004`)).toEqual([]);
  }, 60_000);
});
