// Several suppliers per pack, over the real worker and real PostgreSQL: sandbox supplier accounts
// with behaviours of their own, and two fake h2h suppliers over HTTP. Failover on the supplier's own
// refusals only, an unknown outcome asked about until it is known, never two deliveries, the
// circuit breaker, pause and resume, and the cost and margin of what was delivered.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "@/lib/config/env";
import { readMargins } from "@/lib/dashboard/sql/read-margins";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { setSupplierPaused } from "@/lib/suppliers/pause-supplier";
import { notifyCircuitChange } from "@/lib/suppliers/notify-circuit-change";
import { Telegram } from "telegraf";
import { FakeTelegram } from "../helpers/fake-telegram";
import { CIRCUIT_FAILURE_THRESHOLD } from "@/lib/suppliers/sql/record-supplier-result";
import { readSupplierHealth } from "@/lib/suppliers/sql/read-supplier-health";
import { api } from "../helpers/api";
import { useCleanDatabase } from "../helpers/clean-database";
import { sql, sqlRow } from "../helpers/db";
import { startFakeH2hSupplier, type FakeH2hSupplier } from "../helpers/fake-h2h-supplier";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { upsertSupplier } from "../helpers/suppliers";
import { createLinkedAdmin } from "../helpers/telegram-admins";
import { suiteDatabaseUrl } from "../helpers/suite";

let worker: RunningWorker;
let key: string;
let accountId: number;
const fakes: FakeH2hSupplier[] = [];

useCleanDatabase({ checkBooks: true });
beforeAll(async () => {
  for (const name of ["fake-a", "fake-b"]) {
    const fake = await startFakeH2hSupplier({ partnerId: `p-${name}`, secret: `s-${name}` });
    fakes.push(fake);
    // Each account's secret comes from a variable of its own.
    process.env[`SUPPLIER_SECRET_${name.toUpperCase().replace("-", "_")}`] = `s-${name}`;
  }
  const config = loadEnv({
    ...process.env,
    SUPPLIER_POLL_MS: "100",
    SUPPLIER_POLL_MAX_MS: "200",
    SUPPLIER_DEADLINE_MS: "30000",
    // The fake suppliers listen on 127.0.0.1.
    SUPPLIERS_ALLOW_PRIVATE: "1",
  });
  ({ key, accountId } = await createAccount({ balanceCents: 100_000 }));
  worker = await startWorker({ connectionString: suiteDatabaseUrl(), concurrency: 4, log: () => undefined, config });
});
afterAll(async () => {
  await worker?.stop();
  for (const fake of fakes) await fake.close();
});

/** SVCBR60 ($0.99) is carried by these suppliers, in this order, at these costs. */
async function offerBr60(offers: { supplierId: number; costCents: number }[]) {
  await sql(`DELETE FROM supplier_offers WHERE product_id = (SELECT id FROM products WHERE catalog_id = 'SVCBR60')`);
  for (const [index, offer] of offers.entries()) {
    await sql(
      `INSERT INTO supplier_offers (product_id, supplier_id, sku, cost_cents, priority)
       SELECT id, $1, 'br-60', $2, $3 FROM products WHERE catalog_id = 'SVCBR60'`,
      [offer.supplierId, offer.costCents, index + 1],
    );
  }
}

/** An h2h account at `fake`, its secret from the variable named after it (set in beforeAll) unless `secretEnv` says otherwise. */
async function h2hAccount(
  fake: FakeH2hSupplier,
  name: string,
  secretEnv = `SUPPLIER_SECRET_${name.toUpperCase().replace("-", "_")}`,
) {
  return upsertSupplier(name, "h2h", { baseUrl: fake.baseUrl, partnerId: fake.partnerId, timeoutMs: 300, secretEnv });
}

async function placeAndFinish(userId: string) {
  const placed = await order(key, { pid: "SVCBR60", trxid: newTrxid("route"), userId });
  expect(placed.status, placed.text).toBe(200);
  const done = await api(`/orders/${placed.json.orderId}?wait=20`, { key });
  expect(["completed", "cancelled"]).toContain(done.json.status);
  const stored = await sqlRow(
    `SELECT id, supplier, supplier_id, tried_supplier_ids, cost_cents FROM orders WHERE public_id = $1`,
    [placed.json.orderId],
  );
  const attempts = await sql(
    `SELECT data->>'supplier' AS supplier, data->>'outcome' AS outcome, data->>'failure' AS failure
       FROM order_events WHERE order_id = $1 AND data ? 'supplierId' ORDER BY id`,
    [stored.id],
  );
  const money = await sql(`SELECT kind, amount_cents FROM ledger_entries WHERE order_id = $1 ORDER BY id`, [stored.id]);
  return { invoice: done.json, stored, attempts, money, reference: placed.json.orderId as string };
}

describe("failover between suppliers", () => {
  it("A down (refuses for its own reasons), B up: completed through B, charged once, A's refusal in the events", async () => {
    const a = await upsertSupplier("sandbox-down", "sandbox", { down: true });
    const b = await upsertSupplier("sandbox-up", "sandbox");
    await offerBr60([
      { supplierId: a, costCents: 50 },
      { supplierId: b, costCents: 70 },
    ]);
    const { invoice, stored, attempts, money, reference } = await placeAndFinish("6100001");
    expect(invoice.status).toBe("completed");
    expect(stored).toMatchObject({
      supplier: "sandbox-up",
      supplier_id: b,
      tried_supplier_ids: [a, b],
      cost_cents: 70,
    });
    expect(attempts).toEqual([
      { supplier: "sandbox-down", outcome: "failed", failure: "supplier" },
      { supplier: "sandbox-up", outcome: "success", failure: null },
    ]);
    // The supplier that fulfilled it stays resolvable: suppliers are paused, never deleted.
    await expect(sql(`DELETE FROM suppliers WHERE id = $1`, [b])).rejects.toThrow(/pause it instead of deleting it/);
    expect(
      await sqlRow(`SELECT s.name FROM orders o JOIN suppliers s ON s.id = o.supplier_id WHERE o.public_id = $1`, [
        reference,
      ]),
    ).toEqual({ name: "sandbox-up" });
    expect(money).toEqual([{ kind: "debit", amount_cents: -99 }]);
    // Not a leak of our routing: the invoice is the contract's, with no supplier or cost in it.
    expect(invoice).not.toHaveProperty("supplier");
    expect(JSON.stringify(invoice)).not.toContain("sandbox-");
  });

  it("player not found at A: cancelled and refunded at once, B never asked", async () => {
    const a = await upsertSupplier("sandbox-a", "sandbox");
    const b = await upsertSupplier("sandbox-b", "sandbox");
    await offerBr60([
      { supplierId: a, costCents: 50 },
      { supplierId: b, costCents: 70 },
    ]);
    const { invoice, stored, attempts, money } = await placeAndFinish("6100404");
    expect(invoice).toMatchObject({ status: "cancelled", error: "PLAYER NOT FOUND", refunded: true });
    expect(stored).toMatchObject({ tried_supplier_ids: [a], cost_cents: 0 });
    expect(attempts).toEqual([{ supplier: "sandbox-a", outcome: "failed", failure: "customer" }]);
    expect(money).toEqual([
      { kind: "debit", amount_cents: -99 },
      { kind: "refund", amount_cents: 99 },
    ]);
  });

  it("A's answer lost, then A reports it delivered: completed through A, B never asked, one delivery", async () => {
    const [fakeA, fakeB] = fakes as [FakeH2hSupplier, FakeH2hSupplier];
    const a = await h2hAccount(fakeA, "fake-a");
    const b = await h2hAccount(fakeB, "fake-b");
    await offerBr60([
      { supplierId: a, costCents: 60 },
      { supplierId: b, costCents: 65 },
    ]);
    for (const fake of fakes) fake.addPlayer("6200001", "Ann");
    fakeA.failNext("place", { kind: "lose-answer" });
    const { invoice, stored, attempts, reference } = await placeAndFinish("6200001");
    expect(invoice.status).toBe("completed");
    expect(stored).toMatchObject({ supplier: "fake-a", tried_supplier_ids: [a], cost_cents: 60 });
    expect(attempts[0]).toEqual({ supplier: "fake-a", outcome: "unknown", failure: null });
    expect(attempts.at(-1)).toEqual({ supplier: "fake-a", outcome: "success", failure: null });
    expect(fakeA.deliveries(reference)).toBe(1);
    expect(
      fakeB.requests.filter((request) => request.body.includes(reference) || request.path.includes(reference)),
    ).toEqual([]);
  });

  it("A times out and then says it never received the order: completed through B, one delivery", async () => {
    const [fakeA, fakeB] = fakes as [FakeH2hSupplier, FakeH2hSupplier];
    fakes.forEach((fake) => fake.addPlayer("6200002", "Bo"));
    fakeA.failNext("place", { kind: "hang" });
    const { invoice, stored, attempts, reference } = await placeAndFinish("6200002");
    expect(invoice.status).toBe("completed");
    expect(stored).toMatchObject({ supplier: "fake-b", cost_cents: 65 });
    expect(attempts.map((attempt) => [attempt.supplier, attempt.outcome])).toEqual([
      ["fake-a", "unknown"],
      ["fake-a", "not_found"],
      ["fake-b", "success"],
    ]);
    expect(fakeA.deliveries(reference)).toBe(0);
    expect(fakeB.deliveries(reference)).toBe(1);
  });

  it("no supplier left: the last refusal cancels and refunds the order", async () => {
    const a = await upsertSupplier("sandbox-out", "sandbox", { outOfStockSkus: ["br-60"] });
    const b = await upsertSupplier("sandbox-refuses", "sandbox", { refuseSkus: ["br-60"] });
    await offerBr60([
      { supplierId: a, costCents: 50 },
      { supplierId: b, costCents: 70 },
    ]);
    const { invoice, attempts, money } = await placeAndFinish("6100002");
    expect(invoice).toMatchObject({ status: "cancelled", error: "SKU REFUSED", refunded: true });
    expect(attempts.map((attempt) => attempt.supplier)).toEqual(["sandbox-out", "sandbox-refuses"]);
    expect(money.map((entry) => entry.kind)).toEqual(["debit", "refund"]);
  });
});

describe("a supplier account this worker cannot build (its secret's variable is not set)", () => {
  const UNSET = "SUPPLIER_SECRET_NEVER_SET";
  const sentTo = (fake: FakeH2hSupplier, reference: string) =>
    fake.requests.filter((request) => request.body.includes(reference) || request.path.includes(reference));
  const unbuildableAccount = (name: string) => h2hAccount(fakes[0]!, name, UNSET);

  it("is passed over like a refusal when the order never reached it: the next supplier delivers", async () => {
    const broken = await unbuildableAccount("h2h-unset-a");
    const b = await upsertSupplier("sandbox-up", "sandbox");
    await offerBr60([
      { supplierId: broken, costCents: 50 },
      { supplierId: b, costCents: 70 },
    ]);
    const { invoice, stored, attempts, money, reference } = await placeAndFinish("6400001");
    expect(invoice.status).toBe("completed");
    expect(stored).toMatchObject({ supplier: "sandbox-up", tried_supplier_ids: [broken, b], cost_cents: 70 });
    expect(attempts).toEqual([
      { supplier: "h2h-unset-a", outcome: "failed", failure: "supplier" },
      { supplier: "sandbox-up", outcome: "success", failure: null },
    ]);
    expect(money).toEqual([{ kind: "debit", amount_cents: -99 }]);
    expect(sentTo(fakes[0]!, reference)).toEqual([]);
  });

  it("with no other supplier, the order is cancelled and refunded instead of left processing", async () => {
    const broken = await unbuildableAccount("h2h-unset-b");
    await offerBr60([{ supplierId: broken, costCents: 50 }]);
    const { invoice, money } = await placeAndFinish("6400002");
    expect(invoice).toMatchObject({ status: "cancelled", error: "SUPPLIER UNAVAILABLE", refunded: true });
    expect(money.map((entry) => entry.kind)).toEqual(["debit", "refund"]);
  });

  it("an order that may have reached it is asked about again, sent nowhere else, and flagged at the deadline", async () => {
    const [fakeA, fakeB] = fakes as [FakeH2hSupplier, FakeH2hSupplier];
    const a = await h2hAccount(fakeA, "fake-a");
    const b = await h2hAccount(fakeB, "fake-b");
    await offerBr60([
      { supplierId: a, costCents: 60 },
      { supplierId: b, costCents: 65 },
    ]);
    fakes.forEach((fake) => fake.addPlayer("6400003", "Cy"));
    // A's answers are lost, so the order stays with A, asked about again and again.
    fakeA.failNext("place", { kind: "lose-answer" });
    fakeA.behave("check", { kind: "lose-answer" });
    try {
      const placed = await order(key, { pid: "SVCBR60", trxid: newTrxid("unset"), userId: "6400003" });
      expect(placed.status, placed.text).toBe(200);
      const { id } = await sqlRow<{ id: number }>(`SELECT id FROM orders WHERE public_id = $1`, [placed.json.orderId]);
      const attempts = async () => (await sqlRow(`SELECT attempts FROM orders WHERE id = $1`, [id])).attempts as number;
      await expect.poll(attempts).toBeGreaterThan(1);
      // A's secret now comes from a variable this worker does not have; then the deadline passes.
      await h2hAccount(fakeA, "fake-a", UNSET);
      await sql(`UPDATE orders SET created_at = now() - interval '1 hour' WHERE id = $1`, [id]);
      await expect
        .poll(async () => (await sqlRow(`SELECT needs_admin FROM orders WHERE id = $1`, [id])).needs_admin)
        .toBe(true);
      expect(await sqlRow(`SELECT supplier, tried_supplier_ids FROM orders WHERE id = $1`, [id])).toEqual({
        supplier: "fake-a",
        tried_supplier_ids: [a],
      });
      expect(sentTo(fakeB, placed.json.orderId)).toEqual([]);
      expect(await sql(`SELECT kind FROM ledger_entries WHERE order_id = $1`, [id])).toEqual([{ kind: "debit" }]);
    } finally {
      fakeA.behave("check", undefined);
      await h2hAccount(fakeA, "fake-a");
      await sql(`UPDATE suppliers SET consecutive_failures = 0, circuit_open_until = NULL WHERE id = $1`, [a]);
    }
  });
});

describe("the circuit breaker, pause and resume", () => {
  it("opens after repeated failures (orders skip A), and a successful probe closes it", async () => {
    const a = await upsertSupplier("circuit-a", "sandbox", { down: true });
    const b = await upsertSupplier("circuit-b", "sandbox");
    await offerBr60([
      { supplierId: a, costCents: 40 },
      { supplierId: b, costCents: 70 },
    ]);
    for (let i = 0; i < CIRCUIT_FAILURE_THRESHOLD; i++) {
      const { attempts } = await placeAndFinish(`63000${i}1`);
      expect(attempts[0]).toMatchObject({ supplier: "circuit-a", outcome: "failed" });
    }
    expect(await sqlRow(`SELECT circuit_open_until > now() AS open FROM suppliers WHERE id = $1`, [a])).toEqual({
      open: true,
    });
    const skipped = await placeAndFinish("6300101");
    expect(skipped.attempts).toEqual([{ supplier: "circuit-b", outcome: "success", failure: null }]);

    // A is back, and its cool-down has passed: the next order probes it, and the circuit closes.
    await upsertSupplier("circuit-a", "sandbox");
    await sql(`UPDATE suppliers SET circuit_open_until = now() - interval '1 second' WHERE id = $1`, [a]);
    const probe = await placeAndFinish("6300201");
    expect(probe.attempts).toEqual([{ supplier: "circuit-a", outcome: "success", failure: null }]);
    expect(await sqlRow(`SELECT consecutive_failures, circuit_open_until FROM suppliers WHERE id = $1`, [a])).toEqual({
      consecutive_failures: 0,
      circuit_open_until: null,
    });

    const health = (await readSupplierHealth()).find((supplier) => supplier.name === "circuit-a")!;
    expect(health).toMatchObject({ attempts: CIRCUIT_FAILURE_THRESHOLD + 1, delivered: 1, supplierRefusals: 5 });
    expect(health.p50LatencyMs).toBeGreaterThanOrEqual(0);
  });

  it("a paused supplier is skipped until it is resumed; both are audited", async () => {
    const a = (await sqlRow(`SELECT id FROM suppliers WHERE name = 'circuit-a'`)).id;
    expect(await setSupplierPaused({ supplierId: a, paused: true, actor: "admin:ops@example.com" })).toMatchObject({
      status: "updated",
    });
    expect((await placeAndFinish("6300301")).stored.supplier).toBe("circuit-b");
    await setSupplierPaused({ supplierId: a, paused: false, actor: "admin:ops@example.com" });
    expect((await placeAndFinish("6300302")).stored.supplier).toBe("circuit-a");
    const audit = await sql(`SELECT action, actor FROM audit_log WHERE target_type = 'supplier' ORDER BY id`);
    expect(audit).toEqual([
      { action: "supplier.pause", actor: "admin:ops@example.com" },
      { action: "supplier.resume", actor: "admin:ops@example.com" },
    ]);
  });
});

describe("admins are told when a circuit opens or closes", () => {
  it("through the bot, to every admin account", async () => {
    const admin = await createAccount({ key: false });
    await createLinkedAdmin(admin.telegramId, "viewer");
    const fake = await FakeTelegram.start();
    try {
      const telegram = new Telegram(fake.token, { apiRoot: fake.apiRoot });
      expect(await notifyCircuitChange("circuit-a", "opened", telegram)).toBe(1);
      expect(await notifyCircuitChange("circuit-a", "closed", telegram)).toBe(1);
      const texts = fake.textsTo(admin.telegramId);
      expect(texts).toHaveLength(2);
      expect(texts[0]).toContain("Supplier circuit-a: circuit open after repeated failures");
      expect(texts[1]).toContain("Supplier circuit-a: circuit closed");
    } finally {
      await fake.close();
    }
  });
});

describe("cost and margin", () => {
  it("the overview's margins equal the sums over the orders they cover", async () => {
    const now = new Date();
    const margins = await readMargins(new Date(now.getTime() - 86_400_000), new Date(now.getTime() + 1000));
    const orders = await sql(
      `SELECT line_slug, supplier, amount_cents, cost_cents FROM orders WHERE status = 'completed' AND account_id = $1`,
      [accountId],
    );
    const sum = (rows: typeof orders, column: "amount_cents" | "cost_cents") =>
      rows.reduce((total, row) => total + Number(row[column]), 0);
    expect(margins.total).toMatchObject({
      orders: orders.length,
      revenueCents: sum(orders, "amount_cents"),
      costCents: sum(orders, "cost_cents"),
      marginCents: sum(orders, "amount_cents") - sum(orders, "cost_cents"),
    });
    for (const supplier of new Set(orders.map((row) => row.supplier as string))) {
      const mine = orders.filter((row) => row.supplier === supplier);
      expect(margins.bySupplier.find((entry) => entry.supplier === supplier)).toMatchObject({
        orders: mine.length,
        revenueCents: sum(mine, "amount_cents"),
        costCents: sum(mine, "cost_cents"),
      });
    }
    expect(margins.byLine).toEqual([expect.objectContaining({ line: "br", orders: orders.length })]);
    // Cancelled orders cost nothing.
    expect(await sql(`SELECT cost_cents FROM orders WHERE status = 'cancelled' AND cost_cents <> 0`)).toEqual([]);
  });
});
