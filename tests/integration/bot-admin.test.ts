// Admin commands: funding and correcting wallets with confirmation, looking at an account, and the
// account-state and service switches, each checked in the database, the audit log and (where it
// has an API effect) through the real API.
import { beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import { buttonsOf, plain, type FakeUser, type RecordedCall } from "../helpers/fake-telegram";

const ADMIN: FakeUser = { id: 4_500_000_001, first_name: "Ada", username: "ada_admin" };
const OTHER_ADMIN: FakeUser = { id: 4_500_000_002, first_name: "Otto", username: "otto_admin" };
const HOLDER: FakeUser = { id: 4_500_000_003, first_name: "<Zed & Co>", username: "zed_shop" };

const bot = useBotHarness({ admins: [ADMIN, OTHER_ADMIN] });
const { messageTo, say } = bot;
let holderId: number;
let holderKey: string;

beforeAll(async () => {
  await bot.fake.send(HOLDER, "/start");
  holderId = await bot.accountIdOf(HOLDER);
  holderKey = /svc_[A-Za-z0-9]{40}/.exec(plain((await bot.fake.send(HOLDER, "/newkey"))[0]!.payload.text))![0];
  await bot.fake.send(HOLDER, "/api on");
});

async function balance(): Promise<number> {
  return (await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [holderId])).balance_cents;
}

/** Sends an adjustment command and returns its summary message (with the two buttons). */
async function requestAdjustment(
  text: string,
  admin = ADMIN,
): Promise<{ summary: RecordedCall; confirm: string; cancel: string }> {
  const summary = messageTo(await bot.fake.send(admin, text), admin);
  const buttons = buttonsOf(summary);
  expect(buttons, plain(summary.payload.text)).toHaveLength(2);
  return { summary, confirm: buttons[0]![1], cancel: buttons[1]![1] };
}

async function press(data: string, summary: RecordedCall, admin = ADMIN) {
  const calls = await bot.fake.press(admin, data, summary.response.message_id);
  return {
    calls,
    answer: calls.find((call) => call.method === "answerCallbackQuery")?.payload,
    edited: calls.find((call) => call.method === "editMessageText")?.payload.text as string | undefined,
  };
}

describe("/credit", () => {
  it("names the account by id, #id or @username (any case), and refuses unknown or ambiguous names", async () => {
    for (const reference of [String(holderId), `#${holderId}`, "@ZED_shop"]) {
      const { summary } = await requestAdjustment(`/credit ${reference} 1`);
      expect(plain(summary.payload.text)).toContain(`Credit $1.00 to account #${holderId} @zed_shop (<Zed & Co>)`);
    }
    expect(await say(ADMIN, "/credit @nobody_here 5")).toBe(
      "No account @nobody_here. Name it by account id (42) or @username.",
    );
    expect(await say(ADMIN, "/credit 999999 5")).toBe("No account 999999. Name it by account id (42) or @username.");
    expect(await say(ADMIN, "/credit zed_shop 5")).toBe(
      "zed_shop is not an account reference. Use an account id (42) or @username.",
    );
    // A stale copy of the username on another account (its owner renamed since): the id is needed.
    const stale = await sqlRow(`INSERT INTO accounts (telegram_username) VALUES ('zed_shop') RETURNING id`);
    expect(await say(ADMIN, "/credit @zed_shop 5")).toBe(
      `More than one account has been @zed_shop: #${holderId}, #${stale.id}. Use the account id.`,
    );
    // The real owner's /start (or a rename) releases the stale copy: a username has one owner at a time.
    await bot.fake.send(HOLDER, "/start");
    expect(
      (await sqlRow(`SELECT telegram_username FROM accounts WHERE id = $1`, [stale.id])).telegram_username,
    ).toBeNull();
    expect(await sql(`SELECT count(*)::int AS n FROM ledger_entries`)).toEqual([{ n: 0 }]);
  });

  it("another admin cannot confirm someone else's request; an old request expires", async () => {
    const { summary, confirm } = await requestAdjustment(`/credit ${holderId} 5 not yours`);
    const other = await press(confirm, summary, OTHER_ADMIN);
    expect(other.answer).toMatchObject({
      text: "Only the admin who made this request can confirm it.",
      show_alert: true,
    });
    expect(await balance()).toBe(0);

    await sql(`UPDATE admin_action_requests SET created_at = now() - interval '16 minutes' WHERE note = 'not yours'`);
    const late = await press(confirm, summary);
    expect(late.answer?.text).toBe("Expired");
    expect(late.edited).toContain("was not confirmed within 15 minutes, so nothing changed");
    expect(await sql(`SELECT status FROM admin_action_requests WHERE note = 'not yours'`)).toEqual([
      { status: "expired" },
    ]);
    expect(await balance()).toBe(0);
  });

  it("credits when the holder cannot be told, and says so", async () => {
    bot.fake.blockedChats.add(HOLDER.id);
    try {
      const { summary, confirm } = await requestAdjustment(`/credit ${holderId} 20.00 top <up> & more`);
      expect(summary.payload.text).toContain("Note: top &lt;up&gt; &amp; more");
      const done = await press(confirm, summary);
      expect(plain(done.edited!)).toContain("The account holder could not be told");
      expect(await balance()).toBe(2000);
    } finally {
      bot.fake.blockedChats.delete(HOLDER.id);
    }
    const entry = await sqlRow(`SELECT kind, amount_cents, actor, reason FROM ledger_entries WHERE account_id = $1`, [
      holderId,
    ]);
    expect(entry).toEqual({
      kind: "credit",
      amount_cents: 2000,
      actor: `telegram:${ADMIN.id}`,
      reason: "top <up> & more",
    });
  });
});

describe("/debit", () => {
  it("needs a reason, and refuses up front what would go below zero", async () => {
    expect(await say(ADMIN, `/debit ${holderId} 5`)).toContain("A debit needs a reason.");
    expect(await say(ADMIN, `/debit ${holderId} 20.01 too much`)).toBe(
      `Refused: the balance of #${holderId} @zed_shop (<Zed & Co>) is $20.00; a debit of $20.01 would take it below zero.`,
    );
    expect(await sql(`SELECT count(*)::int AS n FROM admin_action_requests WHERE action = 'debit'`)).toEqual([
      { n: 0 },
    ]);
  });

  it("posts a negative adjustment naming the admin and tells the holder why", async () => {
    const { summary, confirm } = await requestAdjustment(`/debit @zed_shop 2.50 duplicate credit`);
    expect(plain(summary.payload.text)).toContain("Debit $2.50 from account");
    expect(plain(summary.payload.text)).toContain("Balance: $20.00 → $17.50");
    const done = await press(confirm, summary);
    expect(done.answer?.text).toBe("Debited");
    expect(plain(done.edited!)).toContain("Debited $2.50 from account");
    expect(plain(messageTo(done.calls, HOLDER).payload.text)).toBe(
      "Your wallet was debited $2.50 as a correction.\nReason: duplicate credit\nBalance: $17.50",
    );
    const entry = await sqlRow(
      `SELECT kind, amount_cents, balance_after_cents, actor, reason FROM ledger_entries WHERE account_id = $1 ORDER BY id DESC LIMIT 1`,
      [holderId],
    );
    expect(entry).toEqual({
      kind: "adjustment",
      amount_cents: -250,
      balance_after_cents: 1750,
      actor: `telegram:${ADMIN.id}`,
      reason: "duplicate credit",
    });
    expect(
      (await sqlRow(`SELECT total_credited_cents FROM accounts WHERE id = $1`, [holderId])).total_credited_cents,
    ).toBe(2000);
  });

  it("a debit that no longer fits at Confirm is refused and closed; the balance never goes below zero", async () => {
    const big = await requestAdjustment(`/debit ${holderId} 15 first correction`);
    const small = await requestAdjustment(`/debit ${holderId} 5 second correction`);
    await press(small.confirm, small.summary);
    expect(await balance()).toBe(1250);
    const refused = await press(big.confirm, big.summary);
    expect(refused.answer?.text).toBe("Refused: balance too low");
    expect(refused.edited).toBe(
      "Refused: the balance is $12.50; a debit of $15.00 would take it below zero. Nothing changed.",
    );
    expect(await balance()).toBe(1250);
    expect(await sql(`SELECT status FROM admin_action_requests WHERE note = 'first correction'`)).toEqual([
      { status: "cancelled" },
    ]);
    expect(await sql(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'wallet.debit_refused'`)).toEqual([
      { n: 1 },
    ]);
    const again = await press(big.confirm, big.summary);
    expect(again.answer?.text).toBe("This debit of $15.00 was already cancelled.");
    const sums = await sqlRow(`SELECT sum(amount_cents)::int AS ledger FROM ledger_entries WHERE account_id = $1`, [
      holderId,
    ]);
    expect(sums.ledger).toBe(1250);
  });
});

describe("/account", () => {
  it("shows state, balance, keys and the recent ledger, escaped", async () => {
    await bot.fake.send(HOLDER, "/ip add 192.0.2.0/24");
    const reply = messageTo(await bot.fake.send(ADMIN, `/account @zed_shop`), ADMIN);
    expect(reply.response.message_id).toEqual(expect.any(Number)); // valid HTML, names escaped
    const text = plain(reply.payload.text);
    expect(text).toContain(`Account #${holderId} @zed_shop (<Zed & Co>)`);
    expect(text).toContain(`Telegram id: ${HOLDER.id}`);
    expect(text).toContain("Not banned");
    expect(text).toContain("API access: on (holder)");
    expect(text).toContain("Balance: $12.50 (credited in total $20.00) · orders: 0");
    expect(text).toContain(`${holderKey.slice(0, 12)} created`);
    expect(text).toContain("IPs: 192.0.2.0/24");
    expect(text).not.toContain(holderKey);
    expect(text).toContain(`adjustment -$5.00 → $12.50 by telegram:${ADMIN.id} — second correction`);
    expect(text).toContain(`credit +$20.00 → $20.00 by telegram:${ADMIN.id} — top <up> & more`);
    expect(await say(ADMIN, "/account")).toContain("Usage: /account <account>");
    await bot.fake.send(HOLDER, "/ip remove 192.0.2.0/24");
  });
});

describe("account states", () => {
  // The holder's key is allowed from anywhere (empty list), so only the account state decides.
  async function apiCode(): Promise<string | number> {
    const res = await api("/balance", { key: holderKey });
    return res.status === 200 ? 200 : res.json.code;
  }

  it("/ban and /unban", async () => {
    expect(await apiCode()).toBe(200);
    expect(await say(ADMIN, `/ban ${holderId} chargeback fraud`)).toBe(
      `⛔ Banned account #${holderId} @zed_shop (<Zed & Co>). API calls answer ACCOUNT_BANNED.`,
    );
    expect(
      await sql(`SELECT banned_at IS NOT NULL AS banned, ban_reason FROM accounts WHERE id = $1`, [holderId]),
    ).toEqual([{ banned: true, ban_reason: "chargeback fraud" }]);
    expect(await apiCode()).toBe("ACCOUNT_BANNED");
    expect(await say(HOLDER, "/start")).toContain("This account is banned");
    expect(await say(ADMIN, `/unban ${holderId}`)).toBe(`Unbanned account #${holderId} @zed_shop (<Zed & Co>).`);
    expect(await say(ADMIN, `/unban ${holderId}`)).toBe(`Account #${holderId} @zed_shop (<Zed & Co>) was not banned.`);
    expect(await apiCode()).toBe(200);
  });

  it("/restrict for some minutes, and 0 to lift", async () => {
    expect(await say(ADMIN, `/restrict ${holderId} soon`)).toContain("Minutes must be a whole number from 0 to 43200");
    expect(await say(ADMIN, `/restrict ${holderId} 43201`)).toContain("Minutes must be a whole number");
    expect(await say(ADMIN, `/restrict ${holderId}`)).toContain("Usage: /restrict <account> <minutes> [reason]");
    const reply = await say(ADMIN, `/restrict @zed_shop 30 cooling off`);
    expect(reply).toContain(`Account #${holderId} @zed_shop (<Zed & Co>) is restricted until`);
    const row = await sqlRow(
      `SELECT extract(epoch FROM restricted_until - now())::int AS seconds, restrict_reason FROM accounts WHERE id = $1`,
      [holderId],
    );
    expect(row.seconds).toBeGreaterThan(29 * 60);
    expect(row.seconds).toBeLessThanOrEqual(30 * 60);
    expect(row.restrict_reason).toBe("cooling off");
    expect(await apiCode()).toBe("ACCOUNT_RESTRICTED");
    expect(await say(ADMIN, `/restrict ${holderId} 0`)).toBe(
      `Restriction lifted for account #${holderId} @zed_shop (<Zed & Co>).`,
    );
    expect(await sql(`SELECT restricted_until FROM accounts WHERE id = $1`, [holderId])).toEqual([
      { restricted_until: null },
    ]);
    expect(await apiCode()).toBe(200);
  });

  it("/block and /unblock (API_DISABLED_BY_ADMIN), which the holder's /api on cannot undo", async () => {
    expect(await say(ADMIN, `/block ${holderId}`)).toBe(
      `🚫 Blocked API access of account #${holderId} @zed_shop (<Zed & Co>). API calls answer API_DISABLED_BY_ADMIN.`,
    );
    expect(await sql(`SELECT api_disabled_by_admin FROM accounts WHERE id = $1`, [holderId])).toEqual([
      { api_disabled_by_admin: true },
    ]);
    expect(await apiCode()).toBe("API_DISABLED_BY_ADMIN");
    expect(await say(HOLDER, "/api on")).toContain("an admin has blocked API access");
    expect(await apiCode()).toBe("API_DISABLED_BY_ADMIN");
    expect(await say(ADMIN, `/block ${holderId}`)).toContain("Already blocked:");
    expect(await say(ADMIN, `/unblock ${holderId}`)).toBe(
      `Unblocked API access of account #${holderId} @zed_shop (<Zed & Co>).`,
    );
    expect(await apiCode()).toBe(200);
    expect(await say(ADMIN, `/block`)).toContain("Usage: /block <account>");
  });
});

describe("service switches", () => {
  it("/maintenance and /ordersoff set the switches through lib/settings", async () => {
    expect(await say(ADMIN, "/maintenance")).toContain("Maintenance is off: orders are accepted.");
    expect(await say(ADMIN, "/maintenance on")).toBe("🛠 Maintenance is ON: new orders answer 503 MAINTENANCE.");
    expect(await say(ADMIN, "/maintenance")).toContain(`set by telegram:${ADMIN.id}`);
    expect(await say(ADMIN, "/ordersoff on")).toBe(
      "⏸ Orders are OFF for everyone: new orders answer 503 API_ORDER_DISABLED (reads still work).",
    );
    expect(
      await sql(
        `SELECT key, value, updated_by FROM settings WHERE key IN ('MAINTENANCE', 'API_ORDER_DISABLED') ORDER BY key`,
      ),
    ).toEqual([
      { key: "API_ORDER_DISABLED", value: true, updated_by: `telegram:${ADMIN.id}` },
      { key: "MAINTENANCE", value: true, updated_by: `telegram:${ADMIN.id}` },
    ]);
    expect(await say(ADMIN, "/maintenance off")).toBe("Maintenance is off: orders are accepted.");
    expect(await say(ADMIN, "/ordersoff off")).toBe("Orders are on again (API_ORDER_DISABLED is off).");
    expect(await say(ADMIN, "/ordersoff off")).toBe(
      "Orders are on again (API_ORDER_DISABLED is off). (it already was)",
    );
    expect(await say(ADMIN, "/ordersoff sometimes")).toContain("Usage: /ordersoff on|off");
    expect(await sql(`SELECT value FROM settings WHERE key IN ('MAINTENANCE', 'API_ORDER_DISABLED')`)).toEqual([
      { value: false },
      { value: false },
    ]);
  });
});

describe("the audit log", () => {
  it("has every admin action, by the admin who took it", async () => {
    const rows = await sql(`SELECT DISTINCT action FROM audit_log WHERE actor = $1`, [`telegram:${ADMIN.id}`]);
    expect(rows.map((row) => row.action).sort()).toEqual(
      [
        "account.api_block",
        "account.api_unblock",
        "account.ban",
        "account.restrict",
        "account.unban",
        "account.unrestrict",
        "admin_user.telegram_link",
        "setting.set",
        "wallet.credit",
        "wallet.credit_requested",
        "wallet.debit",
        "wallet.debit_refused",
        "wallet.debit_requested",
      ].sort(),
    );
  });
});
