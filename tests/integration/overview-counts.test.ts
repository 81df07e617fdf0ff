// The overview's figures are counts kept as orders change (a trigger appends each change, the
// worker folds them in): after placements, refusals, holders' cancels, the worker's completions and
// supplier refusals, and an admin's settlements of flagged orders, all over HTTP and the real worker,
// much of it at once and with folds running meanwhile, the figures equal a direct count over the
// orders (tests/helpers/order-metrics-reference.ts), folded or not, and so does a recount; a database
// whose orders predate the trigger gets their counts when the migrate command creates it.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadEnv } from "@/lib/config/env";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { settleFlaggedOrder } from "@/lib/dashboard/settle-flagged-order";
import { foldOrderStatChanges } from "@/lib/dashboard/sql/fold-order-stat-changes";
import { applyMigrations } from "@/lib/db/migrate";
import { api } from "../helpers/api";
import { sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { expectMatchesReference } from "../helpers/order-metrics-reference";

// Short supplier deadline, so that never-settling top-ups are flagged for an admin within the test.
const config = loadEnv({
  ...process.env,
  SUPPLIER_POLL_MS: "100",
  SUPPLIER_POLL_MAX_MS: "300",
  SUPPLIER_DEADLINE_MS: "1500",
});
// Player ids by their sandbox ending: completed, refused by the supplier (cancelled and refunded),
// never settled (flagged for an admin).
const PLAYERS = ["5120001", "5120500", "5120777"];

let worker: RunningWorker | undefined;
useCleanDatabase({ checkBooks: true });
afterAll(async () => {
  await worker?.stop();
});

type Account = Awaited<ReturnType<typeof createAccount>>;
let rich: Account;
let poor: Account;

beforeAll(async () => {
  rich = await createAccount({ balanceCents: 1_000_000 });
  // Enough for a few orders: the rest of its placements are refused for balance.
  poor = await createAccount({ balanceCents: 300 });
});

/** The overview's 24 hours and 7 days equal the direct count, now; returns the 7 days' total. */
async function expectExact(label: string): Promise<number> {
  const now = new Date();
  await expectMatchesReference("24h", now);
  return expectMatchesReference("7d", now).catch((error: Error) => {
    throw new Error(`${label}: ${error.message}`);
  });
}

/** Places `count` orders at once, every 7th through the poor account; answers the rich account's order ids and how many were refused. */
async function placeMany(count: number, prefix: string): Promise<{ ids: string[]; refused: number }> {
  const placed = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      order(i % 7 === 6 ? poor.key : rich.key, {
        pid: "SVCBR60",
        trxid: newTrxid(prefix),
        userId: PLAYERS[i % PLAYERS.length],
      }),
    ),
  );
  for (const result of placed) expect(result.status, result.text).toBe(200);
  return {
    ids: placed.filter((result, i) => i % 7 !== 6 && result.json.orderCreated).map((result) => result.json.orderId),
    refused: placed.filter((result) => !result.json.orderCreated).length,
  };
}

/** Folds while `work` runs, several at once, so that folds race each other and the writes. */
async function withFolds<T>(work: Promise<T>): Promise<T> {
  const [result] = await Promise.all([work, foldOrderStatChanges(), foldOrderStatChanges(), foldOrderStatChanges()]);
  await Promise.all([foldOrderStatChanges(), foldOrderStatChanges()]);
  return result;
}

async function openOrders(): Promise<{ pending: number; unflagged: number }> {
  const [row] = await sql<{ pending: number; unflagged: number }>(
    `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
            count(*) FILTER (WHERE status IN ('pending', 'processing') AND NOT needs_admin)::int AS unflagged
       FROM orders`,
  );
  return row!;
}

async function waitUntilSettledOrFlagged(): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await openOrders()).unflagged > 0) {
    if (Date.now() > deadline) throw new Error("orders still with the worker after 2 minutes");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("the overview's counts, kept as orders change", () => {
  it("equal a direct count after placements, refusals and holders' cancels, folded or not", async () => {
    // No worker yet: the orders stay pending, so the holder can cancel them.
    const { ids: placed, refused } = await withFolds(placeMany(42, "ov-a"));
    expect(placed.length).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(0);
    expect(await expectExact("placed")).toBe(42);
    const cancels = await withFolds(
      Promise.all(placed.slice(0, 10).map((id) => api(`/orders/${id}/cancel`, { key: rich.key, method: "POST" }))),
    );
    for (const cancel of cancels) expect(cancel.status, cancel.text).toBe(200);
    await expectExact("cancelled by holders");
    await foldOrderStatChanges();
    await expectExact("folded");
  });

  it("equal a direct count while the worker completes, refuses and flags orders, and more are placed", async () => {
    worker = await startWorker({
      connectionString: inject("databaseUrl"),
      concurrency: 4,
      sweepIntervalMs: 200,
      log: () => undefined,
      config,
    });
    // Placements while the worker settles the first ones, and its periodic look folds meanwhile.
    await withFolds(placeMany(30, "ov-b"));
    await expectExact("while the worker settles");
    await waitUntilSettledOrFlagged();
    expect((await openOrders()).pending).toBe(0);
    const total = await expectExact("settled or flagged");
    expect(total).toBe(72);
    const statuses = await sql<{ status: string }>(`SELECT DISTINCT status::text AS status FROM orders`);
    expect(statuses.map((row) => row.status).sort()).toEqual(["cancelled", "completed", "processing"]);
  });

  it("equal a direct count after an admin settles the flagged orders, and after a recount", async () => {
    const flagged = await sql<{ id: number }>(
      `SELECT id FROM orders WHERE needs_admin AND status IN ('pending', 'processing') ORDER BY id`,
    );
    expect(flagged.length).toBeGreaterThan(3);
    const settled = await withFolds(
      Promise.all(
        flagged.map((row, i) =>
          settleFlaggedOrder({
            orderId: row.id,
            outcome: i % 2 === 0 ? "complete" : "cancel_refund",
            reason: "checked with the supplier",
            actor: "admin:overview@example.com",
          }),
        ),
      ),
    );
    for (const result of settled) expect(result.status).toBe("settled");
    await expectExact("settled by an admin");
    await foldOrderStatChanges();
    await expectExact("folded after the settlements");
    // Counted again from the orders themselves: the same figures.
    await sql(`SELECT 1 FROM recount_order_stats()`);
    expect(await expectExact("recounted")).toBe(72);
  });

  it("are counted from the orders once when the trigger first comes to a database that has orders", async () => {
    // A database from before the counts: its orders were placed and settled with no trigger.
    await sql(`DROP TRIGGER orders_counted ON orders`);
    await sql(`DROP TRIGGER orders_recounted ON orders`);
    await sql(`DELETE FROM order_stat_changes`);
    await sql(`DELETE FROM order_stats`);
    await placeMany(14, "ov-c");
    // The release that brings the trigger: its migration forgets the applied files, the migrate
    // command applies them all again while the worker goes on.
    await sql(`DELETE FROM "_sql_functions"`);
    await applyMigrations(inject("databaseUrl"));
    await waitUntilSettledOrFlagged();
    expect(await expectExact("after the migrate")).toBe(86);
    // Applied again, the files change no count.
    await sql(`DELETE FROM "_sql_functions"`);
    await applyMigrations(inject("databaseUrl"));
    expect(await expectExact("after a second migrate")).toBe(86);
  });
});
