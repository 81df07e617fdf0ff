// GET /orders/:id?wait is woken by a NOTIFY that a settlement sends only when a request waits for
// that order (a NOTIFY holds a database-wide lock through its commit, so notifying every
// settlement serialised them all). No worker runs here: the test settles orders itself.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeOrder, ORDER_FINISHED_CHANNEL, ORDER_WAITER_LOCK_NAMESPACE } from "@/lib/fulfilment/sql/settle-order";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteDatabaseUrl } from "../helpers/suite";

let listener: pg.Client;
const notified: number[] = [];

useCleanDatabase();
beforeAll(async () => {
  listener = new pg.Client({ connectionString: suiteDatabaseUrl() });
  await listener.connect();
  listener.on("notification", (message) => notified.push(Number(message.payload)));
  await listener.query(`LISTEN ${ORDER_FINISHED_CHANNEL}`);
});
afterAll(async () => {
  await listener?.end();
});

async function placeOrder(key: string) {
  const placed = await order(key, { pid: "SVCBR60", trxid: newTrxid(), userId: "42" });
  expect(placed.status).toBe(200);
  const row = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [placed.json.orderId]);
  return { publicId: placed.json.orderId as string, id: Number(row.id) };
}

function waiterHolds(orderId: number) {
  return sql(
    `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2 AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [ORDER_WAITER_LOCK_NAMESPACE, orderId],
  ).then((rows) => rows[0]!.n);
}

describe("GET /orders/:id?wait and the settlement's notification", () => {
  it("a settlement nobody waits for sends no NOTIFY; one a request waits for wakes it at once", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const unwatched = await placeOrder(account.key);
    const watched = await placeOrder(account.key);

    expect((await completeOrder(unwatched.id, "test")).settled).toBe(true);

    const waiting = api(`/orders/${watched.publicId}?wait=30`, { key: account.key });
    // The request holds its shared lock while it waits.
    await expect.poll(() => waiterHolds(watched.id), { timeout: 20_000, interval: 50 }).toBe(1);
    expect((await completeOrder(watched.id, "test")).settled).toBe(true);
    const answer = await waiting;
    expect(answer.json.status).toBe("completed");

    // Notifications arrive in commit order: the watched order's came, and none came before it.
    await expect.poll(() => notified.includes(watched.id), { timeout: 20_000, interval: 50 }).toBe(true);
    expect(notified).toEqual([watched.id]);
    // The lock goes with the answer.
    await expect.poll(() => waiterHolds(watched.id), { timeout: 20_000, interval: 50 }).toBe(0);
    await expectBooksBalance();
  });

  it("a request that starts waiting while a settlement holds the lock reads the order once that has committed", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await placeOrder(account.key);
    // A settlement's part, by hand: the exclusive try succeeded (nobody waited yet), commit pending.
    const settling = new pg.Client({ connectionString: suiteDatabaseUrl() });
    await settling.connect();
    try {
      await settling.query("BEGIN");
      expect(
        (
          await settling.query(`SELECT pg_try_advisory_xact_lock($1, $2) AS got`, [
            ORDER_WAITER_LOCK_NAMESPACE,
            placed.id,
          ])
        ).rows[0].got,
      ).toBe(true);
      await settling.query(`UPDATE orders SET status = 'completed', finished_at = now() WHERE id = $1`, [placed.id]);
      const started = Date.now();
      const waiting = api(`/orders/${placed.publicId}?wait=30`, { key: account.key });
      // The request is blocked on the lock (waiting, not granted) until the commit.
      await expect
        .poll(
          async () =>
            (
              await sqlRow(
                `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND NOT granted
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
                [ORDER_WAITER_LOCK_NAMESPACE, placed.id],
              )
            ).n,
          { timeout: 20_000, interval: 50 },
        )
        .toBe(1);
      await settling.query("COMMIT");
      // No NOTIFY was sent, yet the request answers the committed state, well before its 30 s
      // wait would have ended it (a lost wake-up).
      const answer = await waiting;
      expect(answer.json.status).toBe("completed");
      expect(Date.now() - started).toBeLessThan(25_000);
      expect(notified).not.toContain(placed.id);
    } finally {
      await settling.end();
    }
  });
});
