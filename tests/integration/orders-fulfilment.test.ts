// The worker takes every order to a terminal state exactly once, for each sandbox behaviour, and
// the read side (GET /orders/:id, ?wait, /history, /ledger) shows it to the owner only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { cancelAndRefundOrder, completeOrder } from "@/lib/fulfilment/sql/settle-order";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order, storedSupplierRef } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { loadEnv } from "@/lib/config/env";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { creditTestWallet } from "@/lib/wallet/test-wallet";
import { publicOrderNumber } from "@/lib/orders/public-order-id";
import { suiteDatabaseUrl } from "../helpers/suite";

let worker: RunningWorker;
// Short supplier backoff and deadline, so the slow and lost cases settle within a test.
const config = loadEnv({
  ...process.env,
  SUPPLIER_POLL_MS: "100",
  SUPPLIER_POLL_MAX_MS: "300",
  SUPPLIER_DEADLINE_MS: "2500",
  SANDBOX_SLOW_MS: "400",
});

useCleanDatabase({ checkBooks: true });
beforeAll(async () => {
  worker = await startWorker({ connectionString: suiteDatabaseUrl(), concurrency: 4, log: () => undefined, config });
});
afterAll(async () => {
  await worker.stop();
});

async function waitTerminal(key: string, orderId: string) {
  const res = await api(`/orders/${orderId}?wait=20`, { key });
  expect(res.status).toBe(200);
  return res.json;
}

async function terminalEvents(publicId: string) {
  return sql(
    `SELECT e.from_status, e.to_status FROM order_events e JOIN orders o ON o.id = e.order_id
      WHERE o.public_id = $1 ORDER BY e.id`,
    [publicId],
  );
}

describe("top-ups through the sandbox supplier", () => {
  it("completes a normal order; ?wait answers as soon as it finishes, with durationSec", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5120001" });
    const done = await waitTerminal(account.key, placed.json.orderId);
    expect(done).toMatchObject({
      success: true,
      status: "completed",
      orderCreated: true,
      orderId: placed.json.orderId,
    });
    expect(done.durationSec).toBeGreaterThanOrEqual(0);
    expect(done.error).toBeUndefined();
    expect((await terminalEvents(placed.json.orderId)).map((e) => e.to_status)).toEqual(["processing", "completed"]);
    expect(await storedSupplierRef(placed.json.orderId)).toBe(`SANDBOX-${placed.json.orderId}`);
  });

  it.each([
    ["5120404", "PLAYER NOT FOUND"],
    ["5120500", "SUPPLIER REJECTED"],
  ])("player %s: cancelled with %s and refunded exactly once", async (userId, error) => {
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await order(account.key, { pid: "SVCBR325", trxid: newTrxid(), userId });
    const done = await waitTerminal(account.key, placed.json.orderId);
    expect(done).toMatchObject({ status: "cancelled", error, refunded: true });
    expect(await storedSupplierRef(placed.json.orderId)).toBe(`SANDBOX-${placed.json.orderId}`);
    const ledger = await sql(`SELECT kind, amount_cents FROM ledger_entries WHERE account_id = $1 ORDER BY id`, [
      account.accountId,
    ]);
    expect(ledger.map((l) => [l.kind, l.amount_cents])).toEqual([
      ["credit", 1000],
      ["debit", -499],
      ["refund", 499],
    ]);
  });

  it("a slow supplier still completes", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5120408" });
    expect((await waitTerminal(account.key, placed.json.orderId)).status).toBe("completed");
  });

  it("a lost first answer is found by a status inquiry, never guessed", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5120999" });
    expect((await waitTerminal(account.key, placed.json.orderId)).status).toBe("completed");
    const events = await terminalEvents(placed.json.orderId);
    // The transitions; the unknown answer is an event of its own, at the status the order had.
    expect(events.filter((e) => e.from_status !== e.to_status).map((e) => e.to_status)).toEqual([
      "processing",
      "pending",
      "processing",
      "completed",
    ]);
    expect(events.filter((e) => e.from_status === e.to_status)).toEqual([
      { from_status: "processing", to_status: "processing" },
    ]);
  });

  it("an outcome that never settles is flagged for an admin, who settles it once", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5120777" });
    await expect
      .poll(
        async () => await sqlRow(`SELECT needs_admin, status FROM orders WHERE public_id = $1`, [placed.json.orderId]),
        { timeout: 10_000, interval: 200 },
      )
      .toEqual({ needs_admin: true, status: "processing" });
    // Pending answers carried the supplier's reference: it is kept while the order waits.
    expect(await storedSupplierRef(placed.json.orderId)).toBe(`SANDBOX-${placed.json.orderId}`);
    const { id } = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [placed.json.orderId]);
    const admin = { actor: "admin:ops@example.com" };
    const settled = await Promise.all([
      cancelAndRefundOrder(id, "CANCELLED BY ADMIN", admin),
      cancelAndRefundOrder(id, "CANCELLED BY ADMIN", admin),
      completeOrder(id, "admin", { actor: "admin:x" }),
    ]);
    expect(settled.filter((s) => s.settled)).toHaveLength(1);
    const invoice = (await api(`/orders/${placed.json.orderId}`, { key: account.key })).json;
    expect(["cancelled", "completed"]).toContain(invoice.status);
    const { balance_cents } = await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId]);
    expect(balance_cents).toBe(invoice.status === "cancelled" ? 1000 : 901);
  });
});

describe("game keys and gift cards", () => {
  it("delivers the reserved codes on the owner's invoice only", async () => {
    const owner = await createAccount({ balanceCents: 10_000 });
    const stranger = await createAccount({ balanceCents: 10_000 });
    const trxid = newTrxid();
    const placed = await order(owner.key, { pid: "SVCGC10", quantity: 2, trxid });
    const done = await waitTerminal(owner.key, placed.json.orderId);
    expect(done.status).toBe("completed");
    expect(done.codes).toHaveLength(2);
    for (const code of done.codes) expect(code).toMatch(/^DEMO-GC10-\d{4}$/);
    const stored = await sql(
      `SELECT c.status, c.ciphertext FROM inventory_codes c JOIN orders o ON o.id = c.order_id WHERE o.public_id = $1`,
      [placed.json.orderId],
    );
    expect(stored.map((c) => c.status)).toEqual(["delivered", "delivered"]);
    for (const row of stored) for (const code of done.codes) expect(row.ciphertext).not.toContain(code);

    const { id } = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [placed.json.orderId]);
    for (const form of [String(id), placed.json.orderId, trxid]) {
      const res = await api(`/orders/${encodeURIComponent(form)}`, { key: stranger.key });
      expect(res.status, form).toBe(404);
      expect(res.json).toEqual({ success: false, error: "ORDER NOT FOUND", code: "ORDER_NOT_FOUND" });
      expect(res.text).not.toContain("DEMO-");
    }
    const history = await api("/history", { key: stranger.key });
    expect(history.text).not.toContain("DEMO-");
  });
});

describe("reading orders", () => {
  it("finds an order by its number, public id and trxid; anything else is 404", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const trxid = newTrxid();
    const placed = await order(account.key, { pid: "SVCBR60", trxid, userId: "42" });
    const number = publicOrderNumber(placed.json.orderId);
    for (const form of [String(number), placed.json.orderId, placed.json.orderId.toLowerCase(), trxid]) {
      const res = await api(`/orders/${encodeURIComponent(form)}`, { key: account.key });
      expect(res.status, form).toBe(200);
      expect(res.json.orderId).toBe(placed.json.orderId);
    }
    const forged = placed.json.orderId.replace(/-[0-9A-Z]{6}$/, "-AAAAAA");
    for (const form of [forged, "999999999", "SVCAPI-BR-1-XXXXXX", "nope", "%00"]) {
      const res = await api(`/orders/${form}`, { key: account.key });
      expect(res.status, form).toBe(404);
      expect(res.json.error).toBe("ORDER NOT FOUND");
    }
  });

  it("?wait answers at once for a finished order and is bounded to 30 seconds", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "42" });
    await waitTerminal(account.key, placed.json.orderId);
    expect((await api(`/orders/${placed.json.orderId}?wait=30`, { key: account.key })).json.status).toBe("completed");
    expect((await api(`/orders/${placed.json.orderId}?wait=31`, { key: account.key })).status).toBe(400);
  });

  it("/history: own orders newest first, simple and paged modes, and clear errors out of range", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const other = await createAccount({ balanceCents: 10_000 });
    await order(other.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "1" });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: String(i) })).json.orderId);
    const simple = await api("/history", { key: account.key });
    expect(simple.json).toMatchObject({ success: true, count: 5 });
    expect(simple.json.orders.map((o: any) => o.orderId)).toEqual([...ids].reverse());
    expect((await api("/history?limit=2", { key: account.key })).json.orders.map((o: any) => o.orderId)).toEqual([
      ids[4],
      ids[3],
    ]);
    const page2 = await api("/history?page=2&pageSize=2", { key: account.key });
    expect(page2.json).toMatchObject({ success: true, count: 2, page: 2, pageSize: 2, total: 5, hasMore: true });
    expect(page2.json.orders.map((o: any) => o.orderId)).toEqual([ids[2], ids[1]]);
    expect((await api("/history?page=3&pageSize=2", { key: account.key })).json).toMatchObject({
      count: 1,
      hasMore: false,
    });
    expect((await api("/history?page=1", { key: account.key })).json).toMatchObject({
      pageSize: 20,
      total: 5,
      hasMore: false,
    });
    for (const bad of ["limit=0", "limit=201", "limit=abc", "pageSize=51&page=1", "page=0", "limit=1.5", "limit=-1"]) {
      const res = await api(`/history?${bad}`, { key: account.key });
      expect(res.status, bad).toBe(400);
      expect(res.json).toMatchObject({ success: false, error: "INVALID REQUEST" });
    }
  });

  it("/ledger: the statement with running balances, and CSV for reconciliation", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5130404" });
    await waitTerminal(account.key, placed.json.orderId);
    const statement = await api("/ledger", { key: account.key });
    expect(statement.json).toMatchObject({ success: true, total: 3, hasMore: false });
    expect(statement.json.entries.map((e: any) => [e.type, e.amountUsd, e.balanceAfterUsd, e.orderId])).toEqual([
      ["refund", 0.99, 10, placed.json.orderId],
      ["debit", -0.99, 9.01, placed.json.orderId],
      ["credit", 10, 10, null],
    ]);
    const csv = await api("/ledger?format=csv", { key: account.key });
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = csv.text.trim().split("\r\n");
    expect(lines[0]).toBe("id,type,amount_usd,balance_after_usd,order_id,reason,created_at");
    expect(lines).toHaveLength(4);
    expect(lines[2]).toContain('"debit","-0.99","9.01"');
  });
});

describe("test mode", () => {
  it("a test order whose outcome never settles is flagged for an admin, as a live one is", async () => {
    const account = await createAccount({ key: false });
    const testKey = await issueApiKey(account.accountId, "test", { livemode: false });
    if (testKey.status !== "created") throw new Error(`no test key: ${testKey.status}`);
    await creditTestWallet(account.accountId, 1000, "test");
    const placed = await order(testKey.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5120777" });
    expect(placed.status).toBe(200);
    await expect
      .poll(
        async () =>
          await sqlRow(`SELECT livemode, needs_admin, status FROM orders WHERE public_id = $1`, [placed.json.orderId]),
        { timeout: 10_000, interval: 200 },
      )
      .toEqual({ livemode: false, needs_admin: true, status: "processing" });
  });
});

describe("several workers", () => {
  it("two workers racing on the same queue finish every order exactly once", async () => {
    const second = await startWorker({
      connectionString: suiteDatabaseUrl(),
      concurrency: 4,
      log: () => undefined,
      config,
    });
    try {
      const account = await createAccount({ balanceCents: 100_000 });
      const placed = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          order(account.key, {
            pid: "SVCBR60",
            trxid: newTrxid(`w${i}`),
            userId: i % 5 === 0 ? `61${i}404` : `61${i}`,
          }),
        ),
      );
      for (const p of placed)
        expect((await waitTerminal(account.key, p.json.orderId)).status).toMatch(/completed|cancelled/);
      const finals = await sql(
        `SELECT o.id, count(*) FILTER (WHERE e.to_status IN ('completed', 'cancelled'))::int AS finals
           FROM orders o JOIN order_events e ON e.order_id = o.id WHERE o.account_id = $1 GROUP BY o.id`,
        [account.accountId],
      );
      expect(finals).toHaveLength(30);
      expect(finals.every((f) => f.finals === 1)).toBe(true);
    } finally {
      await second.stop();
    }
  });
});
