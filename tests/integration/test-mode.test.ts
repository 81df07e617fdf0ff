// Test mode end to end: keys from the real bot (local Bot API), play money from /testcredit, orders
// over real HTTP fulfilled by the real worker through the sandbox, webhooks to a local receiver.
// A test key's activity never shows to a live key nor touches live money or stock, and the reverse.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { startLocalWebhooksWorker } from "../helpers/local-webhooks-worker";
import { listAccounts } from "@/lib/dashboard/list-accounts";
import { listOrders } from "@/lib/dashboard/list-orders";
import { readOrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { creditTestWallet, resetTestWallet, TEST_CREDIT_DAILY_CAP_CENTS } from "@/lib/wallet/test-wallet";
import { api } from "../helpers/api";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import type { FakeUser } from "../helpers/fake-telegram";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { suiteDatabaseUrl } from "../helpers/suite";

// The development switch: the receivers are on 127.0.0.1 over http. Set before anything reads the
// configuration, so the bot's endpoint checks allow them.
process.env.WEBHOOKS_ALLOW_PRIVATE = "1";

const TESS: FakeUser = { id: 4_700_000_001, first_name: "Tess", username: "tess_tests" };

const bot = useBotHarness();
const { say } = bot;

let worker: RunningWorker;
let liveReceiver: WebhookReceiver;
let testReceiver: WebhookReceiver;
let liveKey: string;
let testKey: string;

beforeAll(async () => {
  await seedDemoCatalog();
  liveReceiver = await WebhookReceiver.start();
  testReceiver = await WebhookReceiver.start();
  worker = await startLocalWebhooksWorker({
    concurrency: 4,
    webhookConcurrency: 2,
  });
  await say(TESS, "/start");
  await say(TESS, "/api on");
  liveKey = /svc_[A-Za-z0-9]{40}/.exec(await say(TESS, "/newkey"))![0];
  await creditWallet({ accountId: await bot.accountIdOf(TESS), amountCents: 10_000, actor: "test", reason: "live" });
});
afterAll(async () => {
  await liveReceiver?.close();
  await testReceiver?.close();
  await worker?.stop();
});

async function terminal(key: string, orderId: string) {
  const res = await api(`/orders/${orderId}?wait=20`, { key });
  expect(res.status).toBe(200);
  return res.json;
}

/** What a live key can see of its account, and the live stock. */
async function liveView() {
  const [balance, history, ledger, events] = await Promise.all(
    ["/balance", "/history", "/ledger", "/events"].map((path) => api(path, { key: liveKey })),
  );
  const stock = await sqlRow(
    `SELECT count(*)::int AS n FROM inventory_codes c JOIN products p ON p.id = c.product_id
      WHERE p.catalog_id = 'SVCGKINDIE' AND c.status = 'available'`,
  );
  return { balance: balance!.json, history: history!.json, ledger: ledger!.json, events: events!.json, stock: stock.n };
}

describe("test mode", () => {
  let before: Awaited<ReturnType<typeof liveView>>;
  const testOrders: string[] = [];

  it("/newkey test issues a svc_test_ key; /testcredit funds the test wallet, not the live one", async () => {
    const issued = await say(TESS, "/newkey test");
    expect(issued).toContain("test key");
    testKey = /svc_test_[A-Za-z0-9]{40}/.exec(issued)![0];
    expect(await say(TESS, "/keys")).toContain(`${testKey.slice(0, 17)} (test)`);
    before = await liveView();

    expect(await say(TESS, "/testcredit 50")).toContain("test balance $50.00");
    expect(await say(TESS, "/balance")).toBe("Balance: $100.00\nTest balance: $50.00 (play money, /testcredit)");
    expect((await api("/balance", { key: testKey })).json).toEqual({
      success: true,
      balanceUsd: 50,
      currency: "USD",
      livemode: false,
    });
    expect((await api("/balance", { key: liveKey })).json).toMatchObject({ balanceUsd: 100, livemode: true });
  });

  it("/testcredit is capped per day and refuses what is not an amount", async () => {
    expect(await say(TESS, "/testcredit 9951")).toBe(
      "Test credits are capped at $10,000.00 a day (UTC); $9,950.00 is left today.",
    );
    expect(await say(TESS, "/testcredit lots")).toContain("Usage: /testcredit <usd>");
  });

  it("/webhook add ... test registers a test endpoint; /webhook list tells the two apart", async () => {
    expect(await say(TESS, `/webhook add ${liveReceiver.url}`)).toMatch(/^Endpoint #\d+ added/);
    expect(await say(TESS, `/webhook add ${testReceiver.url} order.completed,order.cancelled test`)).toMatch(
      /^Test endpoint #\d+ added/,
    );
    const list = await say(TESS, "/webhook list");
    expect(list).toMatch(new RegExp(`#\\d+ ${liveReceiver.url.replace(/[.]/g, "\\.")}`));
    expect(list).toMatch(new RegExp(`#\\d+ \\(test\\) ${testReceiver.url.replace(/[.]/g, "\\.")}`));
  });

  it("test orders complete and cancel by the sandbox endings, with livemode false, against the test wallet", async () => {
    const done = await order(testKey, { pid: "SVCBR60", trxid: "shared-trx-1", userId: "5120001" });
    expect(done.status).toBe(200);
    expect(done.json.orderId).toMatch(/^SVCAPI-BR-/);
    testOrders.push(done.json.orderId);
    expect(await terminal(testKey, done.json.orderId)).toMatchObject({ status: "completed", livemode: false });

    const refused = await order(testKey, { pid: "SVCBR60", trxid: newTrxid("t"), userId: "5120404" });
    testOrders.push(refused.json.orderId);
    expect(await terminal(testKey, refused.json.orderId)).toMatchObject({
      status: "cancelled",
      error: "PLAYER NOT FOUND",
      refunded: true,
      livemode: false,
    });

    // A game key in test mode: generated test codes, no live code taken.
    const keys = await order(testKey, { pid: "SVCGKINDIE", trxid: newTrxid("t"), quantity: 2 });
    testOrders.push(keys.json.orderId);
    const delivered = await terminal(testKey, keys.json.orderId);
    expect(delivered).toMatchObject({ status: "completed", livemode: false });
    expect(delivered.codes).toHaveLength(2);
    for (const code of delivered.codes) expect(code).toMatch(/^TEST-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$/);

    // 50 - 0.99 (completed) - 0 (refunded) - 2 x 4.99
    expect((await api("/balance", { key: testKey })).json.balanceUsd).toBe(39.03);
    const ledger = (await api("/ledger", { key: testKey })).json;
    expect(ledger.entries.length).toBe(5);
    for (const entry of ledger.entries) expect(entry.livemode).toBe(false);
    const history = (await api("/history", { key: testKey })).json;
    expect(history.orders.map((o: { orderId: string }) => o.orderId).sort()).toEqual([...testOrders].sort());
    await expectBooksBalance();
  });

  it("a live key sees none of it, and live money, stock, history, ledger and events are unchanged", async () => {
    for (const orderId of testOrders) {
      const res = await api(`/orders/${orderId}`, { key: liveKey });
      expect(res.status).toBe(404);
      expect(res.json.error).toBe("ORDER NOT FOUND");
    }
    expect(await liveView()).toEqual(before);
    // And the reverse: the test key reads no live entry.
    const testEvents = (await api("/events", { key: testKey })).json.events;
    expect(testEvents.length).toBeGreaterThan(0);
    for (const event of testEvents) expect(event.livemode).toBe(false);
  });

  it("a trxid used in test mode is free in live mode", async () => {
    const live = await order(liveKey, { pid: "SVCBR60", trxid: "shared-trx-1", userId: "5120001" });
    expect(live.status).toBe(200);
    expect(live.json.orderId).not.toBe(testOrders[0]);
    expect(await terminal(liveKey, live.json.orderId)).toMatchObject({ status: "completed", livemode: true });
    expect((await api("/balance", { key: liveKey })).json.balanceUsd).toBe(99.01);
  });

  it("test events go to the test endpoint only, live events to the live one only", async () => {
    await expect.poll(() => testReceiver.received.length, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(3);
    await expect.poll(() => liveReceiver.received.length, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(1);
    const testBodies = testReceiver.received.map((request) => JSON.parse(request.body));
    const liveBodies = liveReceiver.received.map((request) => JSON.parse(request.body));
    for (const body of testBodies) expect(body).toMatchObject({ livemode: false, data: { livemode: false } });
    expect(testBodies.map((body) => body.data.orderId).sort()).toEqual([...testOrders].sort());
    for (const body of liveBodies) expect(body.livemode).toBe(true);
    for (const body of liveBodies) expect(testOrders).not.toContain(body.data?.orderId);
  });

  it("/testreset empties the test wallet with one entry and leaves the live one", async () => {
    expect(await say(TESS, "/testreset")).toBe(
      "Test wallet emptied ($39.03 of play money removed): test balance $0.00.",
    );
    expect((await api("/balance", { key: testKey })).json.balanceUsd).toBe(0);
    expect((await api("/balance", { key: liveKey })).json.balanceUsd).toBe(99.01);
    expect(await say(TESS, "/testreset")).toBe("Your test wallet is already empty.");
    await expectBooksBalance();
  });
});

describe("the test wallet under concurrency", () => {
  it("credits at once never pass the daily cap; a reset racing orders never goes below zero", async () => {
    const holder = await bot.accountIdOf(TESS);
    const results = await Promise.all(Array.from({ length: 24 }, () => creditTestWallet(holder, 60_000, "test")));
    const credited = results.filter((result) => result.status === "credited").length;
    // $50 was credited earlier today; 16 x $600 = $9,600 fits under $10,000, a 17th would not.
    expect(credited).toBe(Math.floor((TEST_CREDIT_DAILY_CAP_CENTS - 5_000) / 60_000));
    const [reset, ...placed] = await Promise.all([
      resetTestWallet(holder, "test"),
      ...Array.from({ length: 8 }, () =>
        order(testKey, { pid: "SVCBR60", trxid: newTrxid("race"), userId: "5120001" }),
      ),
    ]);
    expect(reset.removedCents).toBeGreaterThanOrEqual(0);
    for (const res of placed) expect(res.status).toBe(200);
    const test = await sqlRow(`SELECT balance_cents FROM accounts WHERE live_account_id = $1`, [holder]);
    expect(Number(test.balance_cents)).toBeGreaterThanOrEqual(0);
    await expectBooksBalance();
  });
});

describe("the dashboard", () => {
  it("leaves test activity out of its figures, lists and accounts, and shows it on request", async () => {
    const holder = await bot.accountIdOf(TESS);
    const testOrderCount = (await sqlRow(`SELECT count(*)::int AS n FROM orders WHERE NOT livemode`)).n;
    expect(testOrderCount).toBe(11);
    const live = await readOrderMetrics("24h", new Date());
    expect(live.totals).toMatchObject({ total: 1, completed: 1, revenueCents: 99 });
    const test = await readOrderMetrics("24h", new Date(), false);
    expect(test.totals.total).toBe(testOrderCount);

    const liveList = await listOrders({ accountId: holder });
    expect(liveList.orders.map((o) => o.livemode)).toEqual([true]);
    const testList = await listOrders({ accountId: holder, mode: "test" });
    expect(testList.orders).toHaveLength(testOrderCount);
    // Shown as the holder's, whose test wallet the orders spent.
    for (const item of testList.orders) expect(item).toMatchObject({ livemode: false, accountId: holder });

    const accounts = await listAccounts();
    expect(accounts.accounts.map((account) => account.id)).toEqual([holder]);
  });
});

describe("TEST_MODE=0", () => {
  let server: { child: ChildProcess; baseUrl: string } | undefined;
  afterAll(() => void server?.child.kill("SIGKILL"));

  it("refuses test keys with 401 TEST_MODE_OFF and serves live keys as before", async () => {
    server = await startServer({
      ...TEST_ENV,
      DATABASE_URL: suiteDatabaseUrl(),
      SERVE_DASHBOARD: "0",
      TEST_MODE: "0",
    });
    const refused = await api("/balance", { key: testKey }, server.baseUrl);
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ success: false, code: "TEST_MODE_OFF" });
    expect((await api("/balance", { key: liveKey }, server.baseUrl)).status).toBe(200);
    const orders = await sql(`SELECT count(*)::int AS n FROM orders WHERE NOT livemode`);
    expect(orders[0]!.n).toBeGreaterThan(0);
  });
});
