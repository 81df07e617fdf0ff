// Races beyond the orders suite: mixed keys of one account, mixed quantities and lines, and orders
// racing an admin's credits and debits (through the bot's own confirm path). Afterwards the books
// balance, no balance went negative, and no code is held by two orders.
import { describe, expect, it } from "vitest";
import { startWorker } from "@/lib/fulfilment/sql/run-worker";
import { requestWalletAdjustment } from "@/lib/wallet/request-wallet-adjustment";
import { confirmWalletAdjustment } from "@/lib/wallet/confirm-wallet-adjustment";
import { encryptCode, fingerprintCode } from "@/lib/codes/code-crypto";
import { setLowBalanceThreshold } from "@/lib/webhooks/set-low-balance-threshold";
import { sql, sqlRow } from "../helpers/db";
import { addEndpoint } from "../helpers/webhooks";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteDatabaseUrl } from "../helpers/suite";

const ADMIN = 4242;

useCleanDatabase();

async function adminAdjust(kind: "credit" | "debit", accountId: number, amountCents: number) {
  const requested = await requestWalletAdjustment({
    kind,
    accountId,
    amountCents,
    note: `race ${kind}`,
    adminTelegramId: ADMIN,
    adminUserId: 1,
    actor: `telegram:${ADMIN}`,
  });
  if (requested.status !== "requested") return requested.status;
  return (
    await confirmWalletAdjustment({
      token: requested.request.token,
      adminTelegramId: ADMIN,
      adminUserId: 1,
      actor: `telegram:${ADMIN}`,
    })
  ).status;
}

const byNumber = (a: number, b: number) => a - b;

describe("one wallet, many hands at once", () => {
  it("orders from three keys with mixed lines and quantities, racing admin credits and debits", async () => {
    const account = await createAccount({ balanceCents: 6000 });
    const keys = [
      account.key,
      (await issueTestKey(account.accountId)).key,
      (await issueTestKey(account.accountId)).key,
    ];
    const bodies = Array.from({ length: 36 }, (_, i) => {
      const trxid = newTrxid(`race${i}`);
      if (i % 3 === 0) return { pid: "SVCBR60", trxid, userId: "5123" };
      if (i % 3 === 1) return { pid: "SVCGC10", trxid, quantity: 1 + (i % 2) };
      return { pid: "SVCGKINDIE", trxid, quantity: 1 };
    });
    const [answers, adjustments] = await Promise.all([
      Promise.all(bodies.map((body, i) => order(keys[i % 3]!, body))),
      Promise.all([
        ...Array.from({ length: 6 }, () => adminAdjust("credit", account.accountId, 500)),
        ...Array.from({ length: 6 }, () => adminAdjust("debit", account.accountId, 700)),
      ]),
    ]);
    for (const answer of answers) {
      expect([200, 400], JSON.stringify(answer.json)).toContain(answer.status);
      if (answer.status === 400) expect(answer.json.code).toBe("INSUFFICIENT_STOCK");
      else if (!answer.json.orderCreated) expect(answer.json.error).toBe("INSUFFICIENT BALANCE");
    }
    for (const outcome of adjustments) expect(["confirmed", "insufficient_balance"]).toContain(outcome);

    const { balance_cents } = await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId]);
    const charged = await sql(
      `SELECT coalesce(sum(amount_cents), 0)::int AS total FROM orders WHERE account_id = $1 AND order_created`,
      [account.accountId],
    );
    const adjusted = await sql(
      `SELECT coalesce(sum(amount_cents), 0)::int AS total FROM ledger_entries WHERE account_id = $1 AND kind IN ('credit', 'adjustment') AND actor = $2`,
      [account.accountId, `telegram:${ADMIN}`],
    );
    expect(balance_cents).toBeGreaterThanOrEqual(0);
    expect(balance_cents).toBe(6000 - charged[0]!.total + adjusted[0]!.total);
    const minimum = await sql(`SELECT min(balance_after_cents)::int AS low FROM ledger_entries WHERE account_id = $1`, [
      account.accountId,
    ]);
    expect(minimum[0]!.low).toBeGreaterThanOrEqual(0);
    await expectBooksBalance();
  });

  it("a burst of 50 orders on one wallet queues: every one is answered 200, none 503", async () => {
    // Each order holds the wallet's row lock until it commits, so the burst runs one at a time
    // behind the pool's ten connections; waiting for a connection is queueing, not an outage.
    const account = await createAccount({ balanceCents: 50 * 99 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        order(account.key, { pid: "SVCBR60", trxid: newTrxid(`burst${i}`), userId: "5123" }),
      ),
    );
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json.orderCreated).toBe(true);
    }
    const { balance_cents } = await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId]);
    expect(balance_cents).toBe(0);
    await expectBooksBalance();
  });

  it("one trxid sent at once from two keys of one account makes one order", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const other = (await issueTestKey(account.accountId)).key;
    for (let round = 0; round < 10; round++) {
      const body = { pid: "SVCBR60", trxid: newTrxid(`dup${round}`), userId: "5123" };
      const answers = await Promise.all([
        order(account.key, body),
        order(other, body),
        order(account.key, body),
        order(other, body),
      ]);
      for (const answer of answers) {
        if (answer.status === 200) expect(answer.json.orderCreated).toBe(true);
        else expect(["FORBIDDEN", "DUPLICATE_IN_FLIGHT"]).toContain(answer.json.code);
      }
      expect(new Set(answers.filter((a) => a.status === 200).map((a) => a.json.orderId)).size).toBe(1);
    }
    const { n } = await sqlRow(`SELECT count(*)::int AS n FROM orders WHERE account_id = $1`, [account.accountId]);
    expect(n).toBe(10);
    await expectBooksBalance();
  });
  // Placement writes in one transaction (place_order, called by lib/orders/sql/place-order.ts):
  // this checks each of its writes under contention. The balance only falls (no credits), so an
  // order refused for its price proves the balance at the end is below that price, and the
  // threshold is crossed exactly once. Key orders are for one code each, so a stock refusal
  // means every code went to an order that committed.
  it("placements on a wallet that affords only some, key orders on scarce stock, admin debits: each charged whole or not at all and fulfilled once, one balance.low", async () => {
    const B = 4000;
    const THRESHOLD = 2500;
    const account = await createAccount({ balanceCents: B });
    const second = await issueTestKey(account.accountId);
    await setLowBalanceThreshold({ accountId: account.accountId, thresholdCents: THRESHOLD, actor: "test" });
    await addEndpoint(account.accountId, "http://127.0.0.1:9/low", ["balance.low"]);
    const { id: productId } = await sqlRow(`SELECT id FROM products WHERE catalog_id = 'SVCGKINDIE'`);
    await sql(`DELETE FROM inventory_codes WHERE product_id = $1 AND status = 'available'`, [productId]);
    const STOCK = 4;
    for (let i = 0; i < STOCK; i++) {
      const code = `ONE-STATEMENT-${Date.now()}-${i}`;
      await sql(`INSERT INTO inventory_codes (product_id, ciphertext, code_hash) VALUES ($1, $2, $3)`, [
        productId,
        encryptCode(code),
        fingerprintCode(code),
      ]);
    }

    const keys = [
      { key: account.key, keyId: account.keyId },
      { key: second.key, keyId: second.id },
    ];
    const bodies = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 3
        ? { pid: "SVCGKINDIE", trxid: newTrxid(`scarce${i}`), quantity: 1 }
        : { pid: "SVCBR60", trxid: newTrxid(`afford${i}`), userId: "5123" },
    );
    const [answers, adjustments] = await Promise.all([
      Promise.all(bodies.map((body, i) => order(keys[i % 2]!.key, body))),
      Promise.all(Array.from({ length: 4 }, () => adminAdjust("debit", account.accountId, 300))),
    ]);

    const { balance_cents: balance } = await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [
      account.accountId,
    ]);
    expect(balance).toBeGreaterThanOrEqual(0);
    const stored = await sql(
      `SELECT id, public_id, trxid, api_key_id, status, order_created, error, finished_at, amount_cents, line_kind FROM orders WHERE account_id = $1`,
      [account.accountId],
    );
    const byTrxid = new Map(stored.map((o) => [o.trxid, o]));
    let charged = 0;
    let stockRefused = 0;
    answers.forEach((answer, i) => {
      const row = byTrxid.get(bodies[i]!.trxid);
      if (answer.status === 400) {
        // Refused for stock: rolled back whole, no order stored, nothing charged.
        expect(answer.json.code, JSON.stringify(answer.json)).toBe("INSUFFICIENT_STOCK");
        expect(bodies[i]!.pid).toBe("SVCGKINDIE");
        expect(row).toBeUndefined();
        stockRefused++;
        return;
      }
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      if (!row) throw new Error(`no order stored for ${bodies[i]!.trxid}`);
      expect(row.public_id).toBe(answer.json.orderId);
      expect(row.api_key_id).toBe(keys[i % 2]!.keyId);
      if (answer.json.orderCreated) {
        expect(row).toMatchObject({ status: "processing", order_created: true, error: null, finished_at: null });
        charged += row.amount_cents;
      } else {
        expect(answer.json).toMatchObject({ status: "cancelled", error: "INSUFFICIENT BALANCE" });
        expect(row).toMatchObject({ status: "cancelled", order_created: false, error: "INSUFFICIENT BALANCE" });
        expect(row.finished_at).not.toBeNull();
        // Refused while the balance, which only falls, was below its price.
        expect(balance).toBeLessThan(row.amount_cents);
      }
    });
    expect(stored).toHaveLength(answers.length - stockRefused);
    expect(stored.some((o) => !o.order_created)).toBe(true);
    let adjusted = 0;
    for (const outcome of adjustments) {
      expect(["confirmed", "insufficient_balance"]).toContain(outcome);
      if (outcome === "confirmed") adjusted += 300;
      else expect(balance).toBeLessThan(300);
    }
    expect(balance).toBe(B - charged - adjusted);

    // Each charged order's debit as postLedgerEntry writes it.
    const debits = await sql(
      `SELECT order_id, amount_cents, actor, reason FROM ledger_entries WHERE account_id = $1 AND kind = 'debit'`,
      [account.accountId],
    );
    const created = stored.filter((o) => o.order_created);
    expect(debits).toHaveLength(created.length);
    for (const o of created) {
      expect(debits.filter((d) => d.order_id === o.id)).toEqual([
        {
          order_id: o.id,
          amount_cents: -o.amount_cents,
          actor: `api-key:${o.api_key_id}`,
          reason: `order ${o.public_id}`,
        },
      ]);
    }

    // Codes: one per charged key order, never more than the stock; a stock refusal means none is left.
    const codes = await sql(
      `SELECT status, order_id FROM inventory_codes WHERE product_id = $1 AND (status = 'available' OR order_id = ANY($2))`,
      [productId, stored.map((o) => o.id)],
    );
    const keyOrders = created.filter((o) => o.line_kind !== "topup");
    expect(
      codes
        .filter((c) => c.status === "reserved")
        .map((c) => c.order_id)
        .sort(byNumber),
    ).toEqual(keyOrders.map((o) => o.id).sort(byNumber));
    expect(codes).toHaveLength(STOCK);
    if (stockRefused > 0) expect(keyOrders).toHaveLength(STOCK);

    // One event per order.
    const events = await sql(
      `SELECT order_id, from_status, to_status, reason FROM order_events WHERE order_id = ANY($1)`,
      [stored.map((o) => o.id)],
    );
    expect(events).toHaveLength(stored.length);
    for (const o of stored) {
      expect(events.find((e) => e.order_id === o.id)).toEqual({
        order_id: o.id,
        from_status: null,
        to_status: o.status,
        reason: o.order_created
          ? "placed: wallet debited, queued for fulfilment"
          : "INSUFFICIENT BALANCE: nothing charged",
      });
    }
    // Each charged order was queued for fulfilment: a worker completes it, once; a cancelled one
    // it leaves as it was.
    const worker = await startWorker({
      connectionString: suiteDatabaseUrl(),
      concurrency: 4,
      webhookConcurrency: 0,
      log: () => undefined,
    });
    try {
      await expect
        .poll(
          async () =>
            (
              await sqlRow(`SELECT count(*)::int AS n FROM orders WHERE account_id = $1 AND status = 'processing'`, [
                account.accountId,
              ])
            ).n,
          { timeout: 60_000, interval: 200 },
        )
        .toBe(0);
    } finally {
      await worker.stop();
    }
    const histories = await sql(
      `SELECT o.id, array_agg(e.to_status::text ORDER BY e.id) AS statuses FROM orders o JOIN order_events e ON e.order_id = o.id
        WHERE o.account_id = $1 GROUP BY o.id`,
      [account.accountId],
    );
    expect(new Map(histories.map((h) => [h.id, h.statuses]))).toEqual(
      new Map(stored.map((o) => [o.id, o.order_created ? ["processing", "completed"] : ["cancelled"]])),
    );

    // balance.low: one event per crossing of the ledger (here exactly one), with the balance it crossed to.
    const ledger = await sql(
      `SELECT amount_cents, balance_after_cents FROM ledger_entries WHERE account_id = $1 ORDER BY account_seq`,
      [account.accountId],
    );
    const crossings = ledger.filter(
      (l) => l.balance_after_cents - l.amount_cents >= THRESHOLD && l.balance_after_cents < THRESHOLD,
    );
    expect(crossings).toHaveLength(1);
    const low = await sql(
      `SELECT e.data, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
         FROM webhook_events e WHERE e.account_id = $1 AND e.type = 'balance.low'`,
      [account.accountId],
    );
    expect(low).toEqual([
      {
        data: { balanceUsd: crossings[0]!.balance_after_cents / 100, currency: "USD", thresholdUsd: THRESHOLD / 100 },
        deliveries: 1,
      },
    ]);
    const sequences = await sql(
      `SELECT sequence::int AS sequence FROM webhook_events WHERE account_id = $1 ORDER BY sequence`,
      [account.accountId],
    );
    expect(sequences.map((e) => e.sequence)).toEqual(sequences.map((_, i) => i + 1));
    await expectBooksBalance();
  }, 120_000);
});
