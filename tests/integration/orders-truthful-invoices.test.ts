// Invoices and the catalog say what a client needs to act on (docs/api.md: Orders, Order
// lifecycle): an order waiting for an admin says so, a pack with no codes left is not orderable,
// and stock is checked before the wallet, so a short-stock order never uses up its trxid.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { startLocalWebhooksWorker } from "../helpers/local-webhooks-worker";
import { cancelAndRefundOrder } from "@/lib/fulfilment/sql/settle-order";
import { importInventoryCodes } from "@/lib/catalog/import-inventory-codes";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { WebhookReceiver, type ReceivedWebhook } from "../helpers/webhook-receiver";
import { addEndpoint } from "../helpers/webhooks";

useCleanDatabase({ checkBooks: true });

let worker: RunningWorker;
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  // A short deadline, so an outcome that never settles is flagged within a test.
  worker = await startLocalWebhooksWorker({
    concurrency: 4,
    env: { SUPPLIER_POLL_MS: "100", SUPPLIER_POLL_MAX_MS: "300", SUPPLIER_DEADLINE_MS: "2500" },
  });
});
afterAll(async () => {
  await receiver?.close();
  await worker?.stop();
});

async function balanceCents(accountId: number): Promise<number> {
  return (await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents;
}

async function availableCodes(catalogId: string): Promise<number> {
  const row = await sqlRow(
    `SELECT count(*)::int AS n FROM inventory_codes c JOIN products p ON p.id = c.product_id
      WHERE p.catalog_id = $1 AND c.status = 'available'`,
    [catalogId],
  );
  return row.n;
}

async function ordersWithTrxid(accountId: number, trxid: string) {
  return sql(`SELECT id FROM orders WHERE account_id = $1 AND trxid = $2`, [accountId, trxid]);
}

async function ledgerKinds(accountId: number) {
  return (await sql(`SELECT kind FROM ledger_entries WHERE account_id = $1 ORDER BY id`, [accountId])).map(
    (row) => row.kind,
  );
}

async function restock(catalogId: string, codes: string[]) {
  const { id } = await sqlRow(`SELECT id FROM products WHERE catalog_id = $1`, [catalogId]);
  const result = await importInventoryCodes({
    productId: id,
    sources: [{ label: "pasted list", text: codes.join("\n") }],
    actor: "test",
  });
  expect(result).toMatchObject({ status: "imported", added: codes.length });
}

async function listed(path: "/products" | "/catalog", key: string) {
  const res = await api(path, { key });
  expect(res.status).toBe(200);
  return new Map<string, { orderable: boolean; stock?: number }>(res.json.products.map((p: any) => [p.id, p]));
}

describe("an order waiting for an admin", () => {
  it("says awaitingAdmin: true on its invoice, in history and in its order.flagged webhook; others never carry it", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const url = `${receiver.url}/flagged`;
    await addEndpoint(account.accountId, url);
    const stuck = await order(account.key, { pid: "SVCBR60", trxid: newTrxid("stuck"), userId: "5120777" });
    const normal = await order(account.key, { pid: "SVCBR60", trxid: newTrxid("ok"), userId: "5120001" });
    expect(stuck.json).toMatchObject({ orderCreated: true, status: "processing" });
    expect(stuck.json).not.toHaveProperty("awaitingAdmin");

    // The worker flags it once the deadline passes; the status stays one of the four.
    await expect
      .poll(async () => (await api(`/orders/${stuck.json.orderId}`, { key: account.key })).json, {
        timeout: 15_000,
        interval: 200,
      })
      .toMatchObject({ status: expect.stringMatching(/^(pending|processing)$/), awaitingAdmin: true });
    const done = (await api(`/orders/${normal.json.orderId}?wait=20`, { key: account.key })).json;
    expect(done.status).toBe("completed");
    expect(done).not.toHaveProperty("awaitingAdmin");

    const history = (await api(`/history`, { key: account.key })).json.orders as any[];
    expect(history.find((o) => o.orderId === stuck.json.orderId)).toMatchObject({ awaitingAdmin: true });
    expect(history.find((o) => o.orderId === normal.json.orderId)).not.toHaveProperty("awaitingAdmin");

    const isFlagged = (r: ReceivedWebhook) =>
      r.path === new URL(url).pathname && JSON.parse(r.body).type === "order.flagged";
    await expect.poll(() => receiver.received.filter(isFlagged).length, { timeout: 20_000, interval: 50 }).toBe(1);
    const delivered = JSON.parse(receiver.received.find(isFlagged)!.body);
    expect(delivered.data).toMatchObject({ orderId: stuck.json.orderId, awaitingAdmin: true });

    // Settled by an admin, it no longer waits.
    const { id } = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [stuck.json.orderId]);
    expect(await cancelAndRefundOrder(id, "CANCELLED BY ADMIN", { actor: "admin:ops@example.com" })).toMatchObject({
      settled: true,
    });
    const settled = (await api(`/orders/${stuck.json.orderId}`, { key: account.key })).json;
    expect(settled).toMatchObject({ status: "cancelled", refunded: true });
    expect(settled).not.toHaveProperty("awaitingAdmin");

    // GET /events: the same data as the deliveries. Only the flag carries the field.
    const events = (await api(`/events`, { key: account.key })).json.events as any[];
    const typesOf = (orderId: string) => events.filter((e) => e.data.orderId === orderId).map((e) => e.type);
    expect(typesOf(stuck.json.orderId)).toContain("order.flagged");
    expect(typesOf(stuck.json.orderId).at(-1)).toBe("order.cancelled");
    expect(typesOf(normal.json.orderId)).toEqual(["order.completed"]);
    for (const event of events) {
      if (event.type === "order.flagged") expect(event.data.awaitingAdmin).toBe(true);
      else expect(event.data).not.toHaveProperty("awaitingAdmin");
    }
  });
});

describe("orderable follows stock", () => {
  it("a pack with no codes left is listed orderable: false on /products and /catalog, and true again once restocked", async () => {
    const account = await createAccount({ balanceCents: 100_000 });
    const stock = await availableCodes("SVCGC25");
    expect(stock).toBeGreaterThan(0);
    for (const path of ["/products", "/catalog"] as const) {
      const rows = await listed(path, account.key);
      expect(rows.get("SVCGC25")).toMatchObject({ stock, orderable: true });
    }

    const bought = await order(account.key, { pid: "SVCGC25", quantity: stock, trxid: newTrxid("all") });
    expect(bought.json).toMatchObject({ orderCreated: true });
    for (const path of ["/products", "/catalog"] as const) {
      const rows = await listed(path, account.key);
      expect(rows.get("SVCGC25")).toMatchObject({ stock: 0, orderable: false });
      // Other packs: with codes in stock, or top-ups (no stock count), stay orderable.
      expect(rows.get("SVCGC10")).toMatchObject({ stock: expect.any(Number), orderable: true });
      expect(rows.get("SVCGC10")!.stock).toBeGreaterThan(0);
      expect(rows.get("SVCBR60")).toMatchObject({ orderable: true });
      expect(rows.get("SVCBR60")).not.toHaveProperty("stock");
    }

    await restock("SVCGC25", ["RESTOCK-GC25-0001"]);
    expect((await listed("/products", account.key)).get("SVCGC25")).toMatchObject({ stock: 1, orderable: true });
  });
});

describe("stock is checked before the wallet", () => {
  it("short stock on a short wallet: 400 INSUFFICIENT_STOCK, nothing stored, and the same trxid then places normally", async () => {
    const account = await createAccount({ balanceCents: 100 });
    const stock = await availableCodes("SVCGKINDIE");
    const body = { pid: "SVCGKINDIE", quantity: stock + 1, trxid: newTrxid("short") };

    const refused = await order(account.key, body);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ success: false, error: "INSUFFICIENT STOCK", code: "INSUFFICIENT_STOCK" });
    expect(await ordersWithTrxid(account.accountId, body.trxid)).toEqual([]);
    expect(await balanceCents(account.accountId)).toBe(100);
    expect(await availableCodes("SVCGKINDIE")).toBe(stock);

    // Restocked and funded, the same request is a new order, not a replay of a refusal.
    await restock("SVCGKINDIE", ["RESTOCK-INDIE-0001"]);
    await creditWallet({ accountId: account.accountId, amountCents: 100_000, actor: "test" });
    const placed = await order(account.key, body);
    expect(placed.status).toBe(200);
    expect(placed.headers.get("idempotent-replayed")).toBeNull();
    expect(placed.json).toMatchObject({ orderCreated: true, trxid: body.trxid, quantity: stock + 1 });
    expect(placed.json.status).toMatch(/^(processing|completed)$/);
    expect(await balanceCents(account.accountId)).toBe(100_100 - 499 * (stock + 1));
  });

  it("no stock at all on a short wallet: INSUFFICIENT_STOCK, not INSUFFICIENT BALANCE", async () => {
    const account = await createAccount({ balanceCents: 100 });
    // SVCGC25 was bought out and restocked with one code above; buy that one too.
    const rich = await createAccount({ balanceCents: 100_000 });
    const left = await availableCodes("SVCGC25");
    if (left > 0) await order(rich.key, { pid: "SVCGC25", quantity: left, trxid: newTrxid("drain") });
    expect(await availableCodes("SVCGC25")).toBe(0);

    const trxid = newTrxid("zero");
    const refused = await order(account.key, { pid: "SVCGC25", trxid });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe("INSUFFICIENT_STOCK");
    expect(await ordersWithTrxid(account.accountId, trxid)).toEqual([]);
    expect(await ledgerKinds(account.accountId)).toEqual(["credit"]);
  });

  it("short stock on a rich wallet: INSUFFICIENT_STOCK, nothing charged, reserved or stored", async () => {
    const account = await createAccount({ balanceCents: 100_000 });
    const stock = await availableCodes("SVCGKAAA");
    const trxid = newTrxid("rich");
    const refused = await order(account.key, { pid: "SVCGKAAA", quantity: stock + 1, trxid });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe("INSUFFICIENT_STOCK");
    expect(await balanceCents(account.accountId)).toBe(100_000);
    expect(await ledgerKinds(account.accountId)).toEqual(["credit"]);
    expect(await availableCodes("SVCGKAAA")).toBe(stock);
    expect(await ordersWithTrxid(account.accountId, trxid)).toEqual([]);
    const { order_count } = await sqlRow(`SELECT order_count FROM api_keys WHERE id = $1`, [account.keyId]);
    expect(order_count).toBe(0);
  });

  it("enough stock on a short wallet: a cancelled INSUFFICIENT BALANCE invoice as before, the trxid used, no code held", async () => {
    const account = await createAccount({ balanceCents: 100 });
    const stock = await availableCodes("SVCGKAAA");
    const body = { pid: "SVCGKAAA", quantity: stock, trxid: newTrxid("poor") };
    const refused = await order(account.key, body);
    expect(refused.status).toBe(200);
    expect(refused.json).toMatchObject({
      orderCreated: false,
      status: "cancelled",
      error: "INSUFFICIENT BALANCE",
      refunded: false,
    });
    expect(await balanceCents(account.accountId)).toBe(100);
    expect(await availableCodes("SVCGKAAA")).toBe(stock);
    const held = await sql(
      `SELECT c.id FROM inventory_codes c JOIN orders o ON o.id = c.order_id WHERE o.public_id = $1`,
      [refused.json.orderId],
    );
    expect(held).toEqual([]);
    // The trxid is used: a repeat answers the stored invoice.
    const again = await order(account.key, body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json).toEqual(refused.json);
  });
});
