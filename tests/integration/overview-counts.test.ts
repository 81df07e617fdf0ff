// The overview's figures and margins are counts kept as orders change (a trigger appends each change,
// the worker folds them in): after placements on two lines through two suppliers at different costs,
// refusals, holders' cancels, the worker's completions and supplier refusals, and an admin's
// settlements of flagged orders, all over HTTP and the real worker, much of it at once and with folds
// running meanwhile, the figures equal a direct count over the orders
// (tests/helpers/order-metrics-reference.ts), folded or not, over windows whose edges cut through
// hours with orders, and so does a recount; a database of its own whose orders predate the trigger
// gets their counts when the migrate command creates it.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv, pointAtDatabase } from "@/lib/config/env";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { settleFlaggedOrder } from "@/lib/dashboard/settle-flagged-order";
import { foldOrderStatChanges } from "@/lib/dashboard/sql/fold-order-stat-changes";
import { applyMigrations } from "@/lib/db/migrate";
import { api } from "../helpers/api";
import { closeSql, sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { expectMarginsMatchReference, expectMatchesReference } from "../helpers/order-metrics-reference";
import { upsertSupplier } from "../helpers/suppliers";
import { suiteDatabaseUrl } from "../helpers/suite";

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
  // SVCBR60 through one supplier, SVCBR325 through another, at their own costs; SVCGA60 (another
  // line) through its line's supplier, with no offer.
  const [a, b] = [await upsertSupplier("margins-a", "sandbox"), await upsertSupplier("margins-b", "sandbox")];
  for (const [pid, supplierId, costCents] of [
    ["SVCBR60", a, 70],
    ["SVCBR325", b, 410],
  ] as const) {
    await sql(`DELETE FROM supplier_offers WHERE product_id = (SELECT id FROM products WHERE catalog_id = $1)`, [pid]);
    await sql(
      `INSERT INTO supplier_offers (product_id, supplier_id, sku, cost_cents, priority)
       SELECT id, $2, supplier_sku, $3, 1 FROM products WHERE catalog_id = $1`,
      [pid, supplierId, costCents],
    );
  }
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The overview's 24 hours and 7 days equal the direct count, now, and so do its margins over those
 * windows (as the page asks for them) and over windows whose edges fall inside, or on, hours with
 * orders; returns the 7 days' total.
 */
async function expectExact(label: string): Promise<number> {
  const now = new Date();
  const total = await Promise.all([expectMatchesReference("24h", now), expectMatchesReference("7d", now)]).catch(
    (error: Error) => {
      throw new Error(`${label}: ${error.message}`);
    },
  );
  const at = (ms: number) => new Date(now.getTime() + ms);
  const hour = Math.floor(now.getTime() / HOUR) * HOUR;
  for (const [from, to] of [
    [at(-DAY), now],
    [at(-7 * DAY), now],
    [at(-DAY - 7 * 60_000), at(-DAY + 5 * 60_000)],
    [at(-3 * HOUR - 17 * 60_000), at(-50 * 60_000)],
    [new Date(hour - 5 * HOUR), new Date(hour - HOUR)],
    [new Date(hour - 5 * HOUR), at(1000)],
    [at(-8 * DAY), at(-DAY)],
  ] as const)
    await expectMarginsMatchReference(from, to, label);
  return total[1];
}

const PACKS = [{ pid: "SVCBR60" }, { pid: "SVCBR325" }, { pid: "SVCGA60", serverId: "asia" }];

/** Places `count` orders at once, every 7th through the poor account; answers the rich account's order ids and how many were refused. */
async function placeMany(count: number, prefix: string): Promise<{ ids: string[]; refused: number }> {
  const placed = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      order(i % 7 === 6 ? poor.key : rich.key, {
        ...PACKS[Math.floor(i / PLAYERS.length) % PACKS.length],
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

  it("equal a direct count after the worker completes, refuses and flags orders while more are placed", async () => {
    worker = await startWorker({
      connectionString: suiteDatabaseUrl(),
      concurrency: 4,
      sweepIntervalMs: 200,
      log: () => undefined,
      config,
    });
    // Placements while the worker settles the first ones, and its periodic look folds meanwhile.
    // (Compared once the worker is done: the figures and the direct count are two reads, which a
    // settlement between them would tell apart.)
    await withFolds(placeMany(30, "ov-b"));
    await waitUntilSettledOrFlagged();
    expect((await openOrders()).pending).toBe(0);
    const total = await expectExact("settled or flagged");
    expect(total).toBe(72);
    const statuses = await sql<{ status: string }>(`SELECT DISTINCT status::text AS status FROM orders`);
    expect(statuses.map((row) => row.status).sort()).toEqual(["cancelled", "completed", "processing"]);
  });

  it("equal a direct count after an admin settles the flagged orders, and after a recount", async () => {
    // The worker is done with them: what changes now is this test's doing alone.
    await worker?.stop();
    worker = undefined;
    const flagged = await sql<{ id: number }>(
      `SELECT id FROM orders WHERE needs_admin AND status IN ('pending', 'processing') ORDER BY id`,
    );
    expect(flagged.length).toBeGreaterThan(3);
    // The orders, placed minutes ago, spread over the last 8 hours and around the start of the
    // 24 hours and of the 7 days, so that the windows' whole hours and edges all hold some.
    await withFolds(
      sql(`UPDATE orders SET created_at = created_at - CASE id % 5
             WHEN 0 THEN interval '7 days' + (id % 7 - 3) * interval '4 minutes'
             WHEN 1 THEN interval '1 day' + (id % 7 - 3) * interval '4 minutes'
             ELSE (id % 11) * interval '47 minutes' END`),
    );
    await expectExact("spread over the hours");
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
    expect(await expectExact("recounted")).toBeGreaterThan(40);
  });

  it("are counted from the orders once when the trigger first comes to a database that has orders", async () => {
    // A database from before the counts, of its own (the suite's keeps its triggers): no trigger, no
    // counts, and this file's orders, copied as they are; a few of them still with the worker.
    const suite = new URL(suiteDatabaseUrl());
    const name = `${suite.pathname.slice(1)}_ov_old_${process.pid}`;
    const oldUrl = Object.assign(new URL(suite), { pathname: `/${name}` }).toString();
    const admin = new pg.Client({ connectionString: suite.toString() });
    await admin.connect();
    const old = new pg.Client({ connectionString: oldUrl });
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${name}"`);
      await applyMigrations(oldUrl);
      await old.connect();
      await old.query(`DROP TRIGGER orders_counted ON orders; DROP TRIGGER orders_recounted ON orders`);
      const [{ orders }] = (await sql<{ orders: string }>(`SELECT json_agg(o)::text AS orders FROM orders o`)) as [
        { orders: string },
      ];
      // Their accounts, keys and products stay behind: no foreign-key checks for the copy.
      await old.query(`SET session_replication_role = replica`);
      await old.query(`INSERT INTO orders SELECT * FROM json_populate_recordset(NULL::orders, $1::json)`, [orders]);
      await old.query(`RESET session_replication_role`);
      await old.query(
        `UPDATE orders SET status = 'processing', finished_at = NULL, cost_cents = NULL WHERE status = 'completed' AND id % 3 = 0`,
      );
      const copied = (await old.query(`SELECT count(*)::int AS n FROM orders`)).rows[0].n as number;
      expect(copied).toBe(72);
      // The release that brings the trigger: its migration forgets the applied files, the migrate
      // command applies them all again while the worker settles the open orders.
      await old.query(`DELETE FROM "_sql_functions"`);
      await Promise.all([
        applyMigrations(oldUrl),
        old.query(
          `UPDATE orders SET status = 'completed', finished_at = now(), cost_cents = 55, supplier = 'margins-late'
            WHERE status = 'processing' AND NOT needs_admin`,
        ),
      ]);
      await closeSql();
      pointAtDatabase(oldUrl);
      expect(await expectExact("after the migrate")).toBeGreaterThan(40);
      // Applied again, the files change no count.
      await old.query(`DELETE FROM "_sql_functions"`);
      await applyMigrations(oldUrl);
      expect(await expectExact("after a second migrate")).toBeGreaterThan(40);
    } finally {
      await closeSql();
      pointAtDatabase(suiteDatabaseUrl());
      await old.end().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
