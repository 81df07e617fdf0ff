// The account holder's commands: registration, keys, API access, IP allowlists, balance, orders,
// and the bot's manners (private chats only, escaping, polite errors). The API checks use the
// real server, so a key state set in the bot is proven where it matters.
import { describe, expect, it } from "vitest";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { api } from "../helpers/api";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, firstOf, sqlRow } from "../helpers/db";
import { plain, type FakeUser } from "../helpers/fake-telegram";

const DAN: FakeUser = { id: 4_400_000_001, first_name: "Dan", username: "dan_keys" };
const ERIN: FakeUser = { id: 4_400_000_002, first_name: "Erin", username: "erin_keys" };

const bot = useBotHarness();
const { replyText, say } = bot;

async function newKey(user: FakeUser): Promise<string> {
  const calls = await bot.fake.send(user, "/newkey");
  return /svc_[A-Za-z0-9]{40}/.exec(replyText(calls, user))![0];
}

async function accountOf(user: FakeUser) {
  return await sqlRow(`SELECT * FROM accounts WHERE telegram_id = $1`, [user.id]);
}

describe("registration", () => {
  it("holder commands before /start point to /start and create nothing", async () => {
    expect(await say(DAN, "/newkey")).toBe("You are not registered yet: send /start first.");
    expect(await say(DAN, "/balance")).toBe("You are not registered yet: send /start first.");
    expect(await sql(`SELECT count(*)::int AS n FROM accounts`)).toEqual([{ n: 0 }]);
  });

  it("/start is idempotent: a second /start finds the same account", async () => {
    expect(await say(DAN, "/start")).toContain("Welcome! Your account");
    const first = await accountOf(DAN);
    const again = await say(DAN, "/start");
    expect(again).toContain(`Welcome back! This is account #${first.id}.`);
    expect(await sql(`SELECT count(*)::int AS n FROM accounts WHERE telegram_id = $1`, [DAN.id])).toEqual([{ n: 1 }]);
    expect(
      await sql(`SELECT action FROM audit_log WHERE target_id = $1 AND action = 'account.register'`, [
        String(first.id),
      ]),
    ).toHaveLength(1);
  });

  it("a renamed user is found under the new @username", async () => {
    await say(ERIN, "/start");
    await bot.fake.send({ ...ERIN, username: "erin_renamed" }, "/balance");
    expect((await accountOf(ERIN)).telegram_username).toBe("erin_renamed");
  });

  it("/help lists the holder commands only, for a holder", async () => {
    const help = await say(DAN, "/help");
    for (const command of [
      "/start",
      "/newkey",
      "/keys",
      "/revokekey",
      "/api on|off",
      "/ip add",
      "/ip require on|off",
      "/balance",
      "/orders",
    ]) {
      expect(help).toContain(command);
    }
    expect(help).not.toContain("/credit");
  });
});

describe("API keys and access", () => {
  let first = "";
  let second = "";

  it("/newkey before /api on says access is off, and the key answers API_DISABLED", async () => {
    const calls = await bot.fake.send(DAN, "/newkey");
    const text = replyText(calls, DAN);
    first = /svc_[A-Za-z0-9]{40}/.exec(text)![0];
    expect(text).toContain("API access is off for your account: send /api on");
    const res = await api("/balance", { key: first });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe("API_DISABLED");
  });

  it("/api on and /api off switch the account, and bad arguments get the usage", async () => {
    expect(await say(DAN, "/api on")).toBe("API access is now on.");
    expect((await api("/balance", { key: first })).status).toBe(200);
    expect(await say(DAN, "/api on")).toBe("API access was already on.");
    expect(await say(DAN, "/api maybe")).toBe("Usage: /api on|off\nAPI access is on now.");
    expect(await say(DAN, "/api off")).toBe("API access is now off: API calls answer API_DISABLED.");
    expect((await api("/balance", { key: first })).json.code).toBe("API_DISABLED");
    await say(DAN, "/api on");
  });

  it("with two keys, /ip needs the key prefix and says which prefixes exist", async () => {
    second = await newKey(DAN);
    const reply = await say(DAN, "/ip add 198.51.100.7");
    expect(reply).toContain("You have more than one key: add the key prefix");
    expect(reply).toContain(first.slice(0, 12));
    expect(reply).toContain(second.slice(0, 12));
    expect(await sql(`SELECT count(*)::int AS n FROM ip_allow_entries`)).toEqual([{ n: 0 }]);

    expect(await say(DAN, `/ip add 198.51.100.7 ${second.slice(0, 12)}`)).toContain(
      `Added 198.51.100.7/32 to key ${second.slice(0, 12)}`,
    );
    // Only the named key got the entry: the first key still works from here; the second does not.
    expect((await api("/balance", { key: first })).status).toBe(200);
    expect((await api("/balance", { key: second })).json.code).toBe("IP_NOT_ALLOWED");
  });

  it("addresses are validated and normalised", async () => {
    const prefix = second.slice(0, 12);
    for (const bad of ["999.1.1.1", "10.0.0.1/33", "localhost", "1.2.3", "2001:db8::/129", "<script>"]) {
      const reply = await say(DAN, `/ip add ${bad} ${prefix}`);
      expect(reply).toBe(
        `${bad} is not an IP address or CIDR range.\nExamples: 203.0.113.7, 203.0.113.0/24, 2001:db8::/48`,
      );
    }
    expect(await say(DAN, `/ip add 10.9.8.7/8 ${prefix}`)).toContain("Added 10.0.0.0/8");
    expect(await say(DAN, `/ip add 2001:DB8::1 ${prefix}`)).toContain("Added 2001:db8::1/128");
    expect(await say(DAN, `/ip add 10.0.0.0/8 ${prefix}`)).toContain("10.0.0.0/8 is already on the allowlist");
    expect(await say(DAN, `/ip remove 192.0.2.1 ${prefix}`)).toContain("192.0.2.1/32 is not on the allowlist");
    expect(await say(DAN, `/ip add 1.2.3.4 svc_NOSUCHKEY`)).toBe(
      "You have no active key with prefix svc_NOSUCHKEY. /keys lists your keys.",
    );
    expect(await say(DAN, "/ip add")).toContain("Usage:");
    expect(await say(DAN, "/ip frobnicate 1.2.3.4")).toContain("Usage:");
    const cidrs = await sql(`SELECT cidr FROM ip_allow_entries ORDER BY cidr`);
    expect(cidrs.map((row) => row.cidr)).toEqual(["10.0.0.0/8", "198.51.100.7/32", "2001:db8::1/128"]);
  });

  it("/ip list shows every key's list; /keys shows prefixes only", async () => {
    const list = await say(DAN, "/ip list");
    expect(list).toContain(`${first.slice(0, 12)}: empty: any IP can use this key`);
    expect(list).toContain(`${second.slice(0, 12)}: 10.0.0.0/8, 198.51.100.7/32, 2001:db8::1/128`);
    const keys = await say(DAN, "/keys");
    expect(keys).toContain(first.slice(0, 12));
    expect(keys).not.toContain(first);
    expect(keys).not.toContain(second);
  });

  it("/ip require on makes an empty list refuse calls (IP_ALLOWLIST_REQUIRED)", async () => {
    const prefix = first.slice(0, 12);
    const reply = await say(DAN, `/ip require on ${prefix}`);
    expect(reply).toContain(`Key ${prefix} requires an IP allowlist.`);
    expect(reply).toContain("API calls are refused (IP_ALLOWLIST_REQUIRED)");
    expect((await api("/balance", { key: first })).json.code).toBe("IP_ALLOWLIST_REQUIRED");
    expect(await say(DAN, `/ip add 127.0.0.0/8 ${prefix}`)).toContain("Added 127.0.0.0/8");
    expect((await api("/balance", { key: first })).status).toBe(200);
    await say(DAN, `/ip remove 127.0.0.1/8 ${prefix}`); // any spelling of the entry removes it
    expect((await api("/balance", { key: first })).json.code).toBe("IP_ALLOWLIST_REQUIRED");
    expect(await say(DAN, `/ip require off ${prefix}`)).toContain("no longer requires");
    expect((await api("/balance", { key: first })).status).toBe(200);
  });

  it("/keylimit caps what a key's orders charge per UTC day, shown in /keys; off lifts it", async () => {
    const prefix = first.slice(0, 12);
    expect(await say(DAN, "/keylimit")).toBe("Usage: /keylimit <key-prefix> <usd>|off");
    expect(await say(DAN, `/keylimit ${prefix} 0.505`)).toContain("at most two decimals");
    expect(await say(DAN, `/keylimit ${prefix} 0.50`)).toBe(
      `Key ${prefix} may charge at most $0.50 a day (UTC). An order past it answers KEY_SPENDING_LIMIT and charges nothing.`,
    );
    expect(await say(DAN, "/keys")).toContain(`${prefix}\n  created`);
    expect(await say(DAN, "/keys")).toContain("spending limit: $0.50 a day (UTC), $0.00 spent today");
    await seedDemoCatalog();
    const body = { pid: "SVCBR60", trxid: "keylimit-1", userId: "5123456" };
    const refused = await api("/orders", { key: first, method: "POST", body });
    expect(refused.json).toMatchObject({ code: "KEY_SPENDING_LIMIT", limitUsd: 0.5, spentTodayUsd: 0 });
    expect(await say(DAN, `/keylimit ${prefix} off`)).toBe(`Key ${prefix} has no spending limit now.`);
    expect(await say(DAN, "/keys")).not.toContain("a day (UTC)");
    expect(await say(DAN, "/keys")).toContain("spending limit: none (/keylimit sets one)");
    expect(await sql(`SELECT daily_limit_cents FROM api_keys WHERE prefix = $1`, [prefix])).toEqual([
      { daily_limit_cents: null },
    ]);
  });

  it("a holder cannot touch another holder's keys, even knowing the prefix", async () => {
    const erinKey = await newKey(ERIN);
    const erinPrefix = erinKey.slice(0, 12);
    expect(await say(DAN, `/revokekey ${erinPrefix}`)).toBe(
      `You have no active key with prefix ${erinPrefix}. /keys lists your keys.`,
    );
    expect(await say(DAN, `/ip add 1.2.3.4 ${erinPrefix}`)).toBe(
      `You have no active key with prefix ${erinPrefix}. /keys lists your keys.`,
    );
    expect(await say(DAN, `/ip require on ${erinPrefix}`)).toBe(
      `You have no active key with prefix ${erinPrefix}. /keys lists your keys.`,
    );
    expect(await say(DAN, `/keylimit ${erinPrefix} 5`)).toBe(
      `You have no active key with prefix ${erinPrefix}. /keys lists your keys.`,
    );
    expect(
      await sql(`SELECT revoked_at, require_ip_allowlist, daily_limit_cents FROM api_keys WHERE prefix = $1`, [
        erinPrefix,
      ]),
    ).toEqual([{ revoked_at: null, require_ip_allowlist: false, daily_limit_cents: null }]);
    expect(
      await sql(
        `SELECT count(*)::int AS n FROM ip_allow_entries e JOIN api_keys k ON k.id = e.api_key_id WHERE k.prefix = $1`,
        [erinPrefix],
      ),
    ).toEqual([{ n: 0 }]);
  });

  it("/revokekey revokes one key: it answers INVALID_API_KEY at once; the other keeps working", async () => {
    expect(await say(DAN, "/revokekey")).toContain("Usage: /revokekey <prefix>");
    const prefix = first.slice(0, 12);
    expect(await say(DAN, `/revokekey ${prefix}`)).toBe(
      `Key ${prefix} is revoked: API calls with it now answer INVALID_API_KEY.`,
    );
    expect((await api("/balance", { key: first })).json.code).toBe("INVALID_API_KEY");
    expect(await say(DAN, `/revokekey ${prefix}`)).toContain("You have no active key");
    // One key left: /ip no longer needs the prefix.
    expect(await say(DAN, "/ip add 127.0.0.1")).toContain(`Added 127.0.0.1/32 to key ${second.slice(0, 12)}`);
    expect((await api("/balance", { key: second })).status).toBe(200);
    const audit = await sql(`SELECT action FROM audit_log WHERE actor = $1 ORDER BY id`, [`telegram:${DAN.id}`]);
    expect(audit.map((row) => row.action)).toEqual(
      expect.arrayContaining([
        "api_key.create",
        "api_key.revoke",
        "api_key.ip_add",
        "api_key.ip_remove",
        "api_key.ip_require_on",
        "account.api_on",
        "account.api_off",
      ]),
    );
  });

  it("a /newkey reply that cannot be delivered leaves no live key behind", async () => {
    const before = await sql(`SELECT count(*)::int AS n FROM api_keys WHERE revoked_at IS NULL`);
    bot.fake.failNext("sendMessage");
    const calls = await bot.fake.send(ERIN, "/newkey");
    // The bot said sorry (the failed key message is recorded first).
    expect(plain(calls.at(-1)!.payload.text)).toBe(
      "Sorry, something went wrong on our side. Please try again in a moment.",
    );
    expect(await sql(`SELECT count(*)::int AS n FROM api_keys WHERE revoked_at IS NULL`)).toEqual(before);
  });
});

describe("limits", () => {
  it("ten active keys at most; long lists arrive in several valid messages", async () => {
    const frank: FakeUser = { id: 4_400_000_004, first_name: "Frank", username: "frank_many" };
    await bot.fake.send(frank, "/start");
    for (let i = 0; i < 10; i++) await newKey(frank);
    expect(await say(frank, "/newkey")).toBe(
      "You already have 10 active keys. Revoke one with /revokekey <prefix> first.",
    );
    // Fill every key's allowlist to the limit with long IPv6 entries, straight in the database.
    const keys = await sql(
      `SELECT k.id, k.prefix FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.telegram_id = $1`,
      [frank.id],
    );
    for (const key of keys) {
      await sql(
        `INSERT INTO ip_allow_entries (api_key_id, cidr)
         SELECT $1, format('2001:db8:%s:%s:1234:5678:9abc:def0/128', to_hex($1::int), to_hex(n)) FROM generate_series(1, 50) n`,
        [key.id],
      );
    }
    expect(await say(frank, `/ip add 203.0.113.9 ${keys[0]!.prefix}`)).toContain("already has 50 entries");
    for (const command of ["/keys", "/ip list"]) {
      const calls = await bot.fake.send(frank, command);
      expect(calls.length, command).toBeGreaterThan(1);
      for (const call of calls) {
        expect(call.payload.text.length).toBeLessThanOrEqual(4096);
        expect(call.response.message_id, call.response.description).toEqual(expect.any(Number));
      }
      const all = calls.map((call) => plain(call.payload.text)).join("\n");
      for (const key of keys) expect(all).toContain(key.prefix);
      expect(all.match(/\/128/g)).toHaveLength(500);
    }
  });
});

describe("balance and orders", () => {
  it("/balance and /orders show the holder's wallet and last 10 orders", async () => {
    const account = await accountOf(DAN);
    expect(await say(DAN, "/balance")).toBe("Balance: $0.00\nTest balance: $0.00 (play money, /testcredit)");
    expect(await say(DAN, "/orders")).toBe("You have no orders yet.");
    for (let i = 1; i <= 12; i++) {
      await sql(
        `INSERT INTO orders (public_id, account_id, trxid, idempotency_key, request_fingerprint, catalog_id, line_slug, line_kind,
                             pack_name, unit_price_cents, amount_cents, status, error, refunded, order_created, key_seq)
         VALUES ($1, $2, $3, $3, 'fp', 'SVCBR1', 'br', 'topup', $4, 150, 150, $5, $6, $7, $8, $9)`,
        [
          `SVCAPI-BR-${i.toString(36)}-abc`,
          account.id,
          `trx-${i}`,
          `Pack <${i}>`,
          i === 12 ? "cancelled" : "completed",
          i === 12 ? "INSUFFICIENT BALANCE" : null,
          false,
          i !== 12,
          i,
        ],
      );
    }
    const text = await say(DAN, "/orders");
    expect(text).toContain("Your last 10 orders");
    expect(text).toContain("SVCAPI-BR-c-abc · br · Pack <12>");
    expect(text).toContain("$1.50 · cancelled (INSUFFICIENT BALANCE)");
    expect(text).toContain("SVCAPI-BR-3-abc");
    expect(text).not.toContain("SVCAPI-BR-2-abc");
    expect(text.match(/SVCAPI-/g)).toHaveLength(10);
  });
});

describe("manners", () => {
  it("commands in a group chat get a pointer to the private chat and do nothing", async () => {
    const mark = bot.fake.calls.length;
    await bot.fake.deliver(bot.fake.message(DAN, "/newkey", { id: -100123, type: "supergroup" }));
    expect(bot.fake.calls.slice(mark).map((call) => call.payload)).toEqual([
      { chat_id: -100123, text: "I only work in a private chat: open a chat with me and send the command there." },
    ]);
    expect(
      await sql(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL`, [
        (await accountOf(DAN)).id,
      ]),
    ).toEqual([{ n: 1 }]);
  });

  it("user-controlled text is escaped in HTML replies", async () => {
    const evil: FakeUser = { id: 4_400_000_003, first_name: "<b>Evil</b> & Co", username: "evil_co" };
    await bot.fake.send(evil, "/start");
    expect((await accountOf(evil)).display_name).toBe("<b>Evil</b> & Co");
    await bot.fake.send(evil, "/newkey");
    const reply = firstOf(await bot.fake.send(evil, "/revokekey <i>x</i>&"));
    expect(reply.payload.text).toContain("&lt;i&gt;x&lt;/i&gt;&amp;");
    // The fake refuses broken HTML as Telegram does; this one was accepted.
    expect(reply.response.message_id).toEqual(expect.any(Number));
  });

  it("unknown commands and plain text get a pointer to /help", async () => {
    expect(await say(DAN, "/frobnicate")).toBe("I don't know /frobnicate. /help lists what I can do.");
    expect(await say(DAN, "hello?")).toBe("Send /help to see what I can do.");
  });

  it("an error while handling an update gets a polite reply, and the bot keeps going", async () => {
    bot.fake.failNext("sendMessage");
    const calls = await bot.fake.send(DAN, "/balance");
    expect(calls.map((call) => call.method)).toEqual(["sendMessage", "sendMessage"]);
    expect(calls[1]!.payload.text).toBe("Sorry, something went wrong on our side. Please try again in a moment.");
    expect(await say(DAN, "/balance")).toBe("Balance: $0.00\nTest balance: $0.00 (play money, /testcredit)");
  });
});
