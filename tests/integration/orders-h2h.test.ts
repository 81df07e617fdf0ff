// Top-up orders fulfilled through the h2h supplier end to end: the API places, the worker calls our
// real h2h client against a local server that speaks the protocol and misbehaves on request.
// Every order ends terminal with exactly one delivery at the supplier.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { startFakeH2hSupplier, type FakeH2hSupplier, type FakeFault } from "../helpers/fake-h2h-supplier";
import { newTrxid, order, storedSupplierRef } from "../helpers/orders";
import { routeLineTo, upsertSupplier } from "../helpers/suppliers";
import { useCleanDatabase } from "../helpers/clean-database";
import { loadEnv } from "@/lib/config/env";
import { suiteDatabaseUrl } from "../helpers/suite";

let supplier: FakeH2hSupplier;
let worker: RunningWorker;
let key: string;

useCleanDatabase({ checkBooks: true });
beforeAll(async () => {
  supplier = await startFakeH2hSupplier({ partnerId: "p-1", secret: "s-1" });
  const config = loadEnv({
    ...process.env,
    H2H_BASE_URL: supplier.baseUrl,
    H2H_PARTNER_ID: "p-1",
    H2H_SECRET: "s-1",
    H2H_TIMEOUT_MS: "300",
    SUPPLIER_POLL_MS: "100",
    SUPPLIER_POLL_MAX_MS: "200",
    SUPPLIER_DEADLINE_MS: "20000",
  });
  await routeLineTo("br", await upsertSupplier("h2h", "h2h"));
  key = (await createAccount({ balanceCents: 100_000 })).key;
  worker = await startWorker({ connectionString: suiteDatabaseUrl(), concurrency: 4, log: () => undefined, config });
});
afterAll(async () => {
  await worker.stop();
  await supplier.close();
});

async function placeAndWait(userId: string) {
  const placed = await order(key, { pid: "SVCBR60", trxid: newTrxid("h2h"), userId });
  expect(placed.json.orderCreated).toBe(true);
  const done = await api(`/orders/${placed.json.orderId}?wait=20`, { key });
  const events = await sql(
    `SELECT e.to_status FROM order_events e JOIN orders o ON o.id = e.order_id WHERE o.public_id = $1 ORDER BY e.id`,
    [placed.json.orderId],
  );
  return { invoice: done.json, events: events.map((e) => e.to_status), reference: placed.json.orderId as string };
}

describe("fulfilment through the h2h supplier", () => {
  it("a known player is delivered once, with our public order id as the supplier's reference", async () => {
    supplier.addPlayer("h2h-1", "Ace");
    const { invoice, events, reference } = await placeAndWait("h2h-1");
    expect(invoice.status).toBe("completed");
    expect(events).toEqual(["processing", "completed"]);
    expect(supplier.deliveries(reference)).toBe(1);
    expect(await storedSupplierRef(reference)).toMatch(/^FAKE-\d+$/);
  });

  it("an unknown player is cancelled and refunded once", async () => {
    const { invoice, reference } = await placeAndWait("h2h-nobody");
    expect(invoice).toMatchObject({ status: "cancelled", error: "PLAYER NOT FOUND", refunded: true });
    expect(supplier.deliveries(reference)).toBe(0);
  });

  const faults: [string, FakeFault, number][] = [
    ["a lost answer", { kind: "lose-answer" }, 1],
    ["garbage", { kind: "garbage", body: "<html>oops</html>" }, 1],
    ["5xx twice", { kind: "status", httpStatus: 502 }, 2],
    ["a hang past the timeout", { kind: "hang" }, 1],
    ["429", { kind: "status", httpStatus: 429 }, 1],
  ];
  it.each(faults)(
    "%s on placement: the outcome is asked for, never guessed, and delivered once",
    async (_name, fault, times) => {
      const player = `h2h-${Math.random().toString(36).slice(2, 8)}`;
      supplier.addPlayer(player, "Bee");
      supplier.failNext("place", fault, times);
      const { invoice, events, reference } = await placeAndWait(player);
      expect(invoice.status).toBe("completed");
      expect(events).toContain("pending");
      expect(events.at(-1)).toBe("completed");
      expect(supplier.deliveries(reference)).toBe(1);
    },
  );

  it("a supplier that answers pending settles after status inquiries", async () => {
    supplier.addPlayer("h2h-slow", "Cee");
    supplier.settleAfterChecks(2);
    try {
      const { invoice, reference } = await placeAndWait("h2h-slow");
      expect(invoice.status).toBe("completed");
      expect(supplier.deliveries(reference)).toBe(1);
      expect(await storedSupplierRef(reference)).toMatch(/^FAKE-\d+$/);
    } finally {
      supplier.settleAfterChecks(0);
    }
  });

  it("the supplier gets the canonical identifiers while the invoice echoes them as sent", async () => {
    await routeLineTo("gacha", await upsertSupplier("h2h", "h2h"));
    supplier.addPlayer("h2h-gacha", "Dee");
    const placed = await order(key, { pid: "SVCGA60", trxid: newTrxid("h2h"), userId: " h2h-gacha ", serverId: "NA" });
    expect(placed.json).toMatchObject({ orderCreated: true, userId: " h2h-gacha ", serverId: "NA" });
    const done = await api(`/orders/${placed.json.orderId}?wait=20`, { key });
    expect(done.json).toMatchObject({ status: "completed", userId: " h2h-gacha ", serverId: "NA" });
    const sent = supplier.requests
      .filter((r) => r.route === "place" && r.body.includes(placed.json.orderId))
      .map((r) => JSON.parse(r.body));
    expect(sent.length).toBeGreaterThan(0);
    for (const body of sent) expect(body).toMatchObject({ userId: "h2h-gacha", serverId: "america" });
  });

  it("the supplier delivered exactly once per completed order, never more", async () => {
    const { completed } = await sqlRow(
      `SELECT count(*)::int AS completed FROM orders WHERE supplier = 'h2h' AND status = 'completed'`,
    );
    expect(completed).toBeGreaterThan(0);
    expect(supplier.totalDeliveries()).toBe(completed);
  });
});
