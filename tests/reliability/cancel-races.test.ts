// A holder's cancel (POST /orders/{orderId}/cancel) racing the worker over the same order: exactly
// one wins. Either the order is cancelled and refunded once and the worker changes nothing, or the
// worker has it (completed, or with the supplier) and the cancel answers 409 and changes nothing.
// Both orders of arrival are forced with a row lock held by the test: the second comer queues
// behind the first, so the lock's queue decides who is first. Then many orders with a running
// worker and cancels at every moment. The books balance after each.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encryptCode, fingerprintCode } from "@/lib/codes/code-crypto";
import { fulfilOrder } from "@/lib/fulfilment/sql/fulfil-order";
import { startWorker } from "@/lib/fulfilment/sql/run-worker";
import { api, type ApiResult } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteDatabaseUrl } from "../helpers/suite";

useCleanDatabase();

let holder: pg.Client;
beforeAll(async () => {
  holder = new pg.Client({ connectionString: suiteDatabaseUrl() });
  await holder.connect();
  // Enough codes for every key and gift-card order here.
  for (const catalogId of ["SVCGKINDIE", "SVCGC10"]) {
    const { id: productId } = await sqlRow(`SELECT id FROM products WHERE catalog_id = $1`, [catalogId]);
    for (let i = 0; i < 80; i++) {
      const code = `CANCEL-RACE-${catalogId}-${i}`;
      await sql(`INSERT INTO inventory_codes (product_id, ciphertext, code_hash) VALUES ($1, $2, $3)`, [
        productId,
        encryptCode(code),
        fingerprintCode(code),
      ]);
    }
  }
});
afterAll(async () => {
  await holder?.end();
});

const BODIES = {
  topup: () => ({ pid: "SVCBR60", trxid: newTrxid("cx-topup"), userId: "5123" }),
  gamekey: () => ({ pid: "SVCGKINDIE", trxid: newTrxid("cx-key"), quantity: 1 }),
  giftcard: () => ({ pid: "SVCGC10", trxid: newTrxid("cx-gift"), quantity: 2 }),
};

function cancel(key: string, orderId: string): Promise<ApiResult> {
  return api(`/orders/${orderId}/cancel`, { key, method: "POST" });
}

/** Sessions of this database waiting for a lock right now. */
async function lockWaiters(): Promise<number> {
  const { n } = await sqlRow<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return n;
}

async function untilWaiting(n: number): Promise<void> {
  await expect.poll(lockWaiters, { timeout: 30_000, interval: 20 }).toBe(n);
}

/** What the order became, with its refunds, terminal events and codes by status. */
async function outcomeOf(publicId: string) {
  const row = await sqlRow(
    `SELECT o.id, o.status::text, o.error, o.refunded, o.amount_cents,
            (SELECT count(*)::int FROM ledger_entries l WHERE l.order_id = o.id AND l.kind = 'refund') AS refunds,
            (SELECT count(*)::int FROM order_events e WHERE e.order_id = o.id AND e.to_status IN ('completed', 'cancelled')) AS settlements,
            (SELECT coalesce(json_object_agg(s, n), '{}') FROM (SELECT status::text AS s, count(*)::int AS n FROM inventory_codes
               WHERE order_id = o.id GROUP BY status) c) AS codes
       FROM orders o WHERE o.public_id = $1`,
    [publicId],
  );
  return row;
}

function expectCancelledOnce(outcome: Record<string, any>, answer: ApiResult) {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json).toMatchObject({ status: "cancelled", error: "CANCELLED BY RESELLER", refunded: true });
  expect(outcome).toMatchObject({ status: "cancelled", refunded: true, refunds: 1, settlements: 1 });
  expect(outcome.codes).toEqual({});
}

function expectFulfilledUncancelled(outcome: Record<string, any>, answer: ApiResult) {
  expect(answer.status, answer.text).toBe(409);
  expect(["ORDER_WITH_SUPPLIER", "ORDER_FINISHED"]).toContain(answer.json.code);
  expect(outcome).toMatchObject({ status: "completed", refunded: false, refunds: 0, settlements: 1 });
}

describe("a cancel racing the worker", () => {
  for (const kind of ["topup", "gamekey", "giftcard"] as const) {
    for (const first of ["cancel", "worker"] as const) {
      it(`${kind}: ${first} first wins, the other changes nothing`, async () => {
        const account = await createAccount({ balanceCents: 20_000 });
        for (let round = 0; round < 3; round++) {
          const placed = await order(account.key, BODIES[kind]());
          expect(placed.status, placed.text).toBe(200);
          const { id } = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [placed.json.orderId]);

          // The test holds the order's row; the first comer queues on it, then the second behind it.
          await holder.query("BEGIN");
          await holder.query("SELECT 1 FROM orders WHERE id = $1 FOR UPDATE", [id]);
          const waiting = await lockWaiters();
          let cancelled: Promise<ApiResult>;
          let worked: Promise<void>;
          if (first === "cancel") {
            cancelled = cancel(account.key, placed.json.orderId);
            await untilWaiting(waiting + 1);
            worked = fulfilOrder(id);
          } else {
            worked = fulfilOrder(id);
            await untilWaiting(waiting + 1);
            cancelled = cancel(account.key, placed.json.orderId);
          }
          await untilWaiting(waiting + 2);
          await holder.query("COMMIT");
          const [answer] = await Promise.all([cancelled, worked]);
          // A worker run that found the order cancelled left it so; a later run would too.
          await fulfilOrder(id);

          const outcome = await outcomeOf(placed.json.orderId);
          if (first === "cancel") expectCancelledOnce(outcome, answer);
          else expectFulfilledUncancelled(outcome, answer);
          await expectBooksBalance();
        }
      });
    }
  }

  it("many orders, a running worker and a cancel for each at every moment: one winner each, one refund at most", async () => {
    const account = await createAccount({ balanceCents: 100_000 });
    const kinds = ["topup", "gamekey", "giftcard"] as const;
    const placed = await Promise.all(Array.from({ length: 45 }, (_, i) => order(account.key, BODIES[kinds[i % 3]!]())));
    for (const answer of placed) expect(answer.status, answer.text).toBe(200);
    const { balance_cents: before } = await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [
      account.accountId,
    ]);

    const worker = await startWorker({
      connectionString: suiteDatabaseUrl(),
      concurrency: 4,
      webhookConcurrency: 0,
      log: () => undefined,
    });
    let answers: ApiResult[];
    try {
      // Spread over the time the worker takes, so some cancels come before it, some during, some after.
      answers = await Promise.all(
        placed.map(async (answer, i) => {
          await new Promise((resolve) => setTimeout(resolve, (i % 15) * 15));
          return cancel(account.key, answer.json.orderId);
        }),
      );
      await expect
        .poll(
          async () =>
            (
              await sqlRow(
                `SELECT count(*)::int AS n FROM orders WHERE account_id = $1 AND status IN ('pending', 'processing')`,
                [account.accountId],
              )
            ).n,
          { timeout: 60_000, interval: 200 },
        )
        .toBe(0);
    } finally {
      await worker.stop();
    }

    let refundedCents = 0;
    for (const [i, answer] of answers.entries()) {
      const outcome = await outcomeOf(placed[i]!.json.orderId);
      if (answer.status === 200) {
        expectCancelledOnce(outcome, answer);
        refundedCents += outcome.amount_cents;
      } else {
        expectFulfilledUncancelled(outcome, answer);
      }
    }
    const { balance_cents: after } = await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [
      account.accountId,
    ]);
    expect(after).toBe(before + refundedCents);

    // The events feed says who cancelled each cancelled order.
    const events = await api("/events?limit=500", { key: account.key });
    const cancelledEvents = events.json.events.filter((e: any) => e.type === "order.cancelled");
    expect(cancelledEvents.length).toBe(answers.filter((a) => a.status === 200).length);
    for (const event of cancelledEvents)
      expect(event.data).toMatchObject({ error: "CANCELLED BY RESELLER", cancelledBy: { by: "reseller", via: "api" } });
    await expectBooksBalance();
  });

  it("a second cancel of a cancelled order answers 409 ORDER_FINISHED and refunds nothing more", async () => {
    const account = await createAccount({ balanceCents: 5_000 });
    const placed = await order(account.key, BODIES.gamekey());
    const firstCancel = await cancel(account.key, placed.json.trxid);
    expect(firstCancel.status, firstCancel.text).toBe(200);
    const again = await Promise.all([
      cancel(account.key, placed.json.orderId),
      cancel(account.key, placed.json.orderId),
    ]);
    for (const answer of again) {
      expect(answer.status).toBe(409);
      expect(answer.json).toMatchObject({ code: "ORDER_FINISHED", status: "cancelled" });
    }
    expect((await outcomeOf(placed.json.orderId)).refunds).toBe(1);
    const other = await createAccount({ balanceCents: 0 });
    expect((await cancel(other.key, placed.json.orderId)).json.code).toBe("ORDER_NOT_FOUND");
    await expectBooksBalance();
  });
});
