// Races beyond the orders suite: mixed keys of one account, mixed quantities and lines, and orders
// racing an admin's credits and debits (through the bot's own confirm path). Afterwards the books
// balance, no balance went negative, and no code is held by two orders.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { requestWalletAdjustment } from "@/lib/wallet/request-wallet-adjustment";
import { confirmWalletAdjustment } from "@/lib/wallet/confirm-wallet-adjustment";
import { closeSql, resetDatabase, sql } from "../helpers/db";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";

const ADMIN = 4242;

beforeAll(async () => {
  await resetDatabase();
  await seedDemoCatalog();
});
afterAll(async () => {
  await closePool();
  await closeSql();
});

async function adminAdjust(kind: "credit" | "debit", accountId: number, amountCents: number) {
  const requested = await requestWalletAdjustment({ kind, accountId, amountCents, note: `race ${kind}`, adminTelegramId: ADMIN, actor: `telegram:${ADMIN}` });
  if (requested.status !== "requested") return requested.status;
  return (await confirmWalletAdjustment({ token: requested.request.token, adminTelegramId: ADMIN, actor: `telegram:${ADMIN}` })).status;
}

describe("one wallet, many hands at once", () => {
  it("orders from three keys with mixed lines and quantities, racing admin credits and debits", async () => {
    const account = await createAccount({ balanceCents: 6000 });
    const keys = [account.key, (await issueTestKey(account.accountId)).key, (await issueTestKey(account.accountId)).key];
    const bodies = Array.from({ length: 36 }, (_, i) => {
      const trxid = newTrxid(`race${i}`);
      if (i % 3 === 0) return { pid: "SVCBR60", trxid, userId: "5123" };
      if (i % 3 === 1) return { pid: "SVCGC10", trxid, quantity: 1 + (i % 2) };
      return { pid: "SVCGKINDIE", trxid, quantity: 1 };
    });
    const [answers, adjustments] = await Promise.all([
      Promise.all(bodies.map((body, i) => order(keys[i % 3], body))),
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

    const [{ balance_cents }] = await sql(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId]);
    const charged = await sql(`SELECT coalesce(sum(amount_cents), 0)::int AS total FROM orders WHERE account_id = $1 AND order_created`, [account.accountId]);
    const adjusted = await sql(
      `SELECT coalesce(sum(amount_cents), 0)::int AS total FROM ledger_entries WHERE account_id = $1 AND kind IN ('credit', 'adjustment') AND actor = $2`,
      [account.accountId, `telegram:${ADMIN}`],
    );
    expect(balance_cents).toBeGreaterThanOrEqual(0);
    expect(balance_cents).toBe(6000 - charged[0].total + adjusted[0].total);
    const minimum = await sql(`SELECT min(balance_after_cents)::int AS low FROM ledger_entries WHERE account_id = $1`, [account.accountId]);
    expect(minimum[0].low).toBeGreaterThanOrEqual(0);
    await expectBooksBalance();
  });

  it("a burst of 50 orders on one wallet queues: every one is answered 200, none 503", async () => {
    // Each order holds the wallet's row lock until it commits, so the burst runs one at a time
    // behind the pool's ten connections; waiting for a connection is queueing, not an outage.
    const account = await createAccount({ balanceCents: 50 * 99 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => order(account.key, { pid: "SVCBR60", trxid: newTrxid(`burst${i}`), userId: "5123" })),
    );
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json.orderCreated).toBe(true);
    }
    const [{ balance_cents }] = await sql(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId]);
    expect(balance_cents).toBe(0);
    await expectBooksBalance();
  });

  it("one trxid sent at once from two keys of one account makes one order", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const other = (await issueTestKey(account.accountId)).key;
    for (let round = 0; round < 10; round++) {
      const body = { pid: "SVCBR60", trxid: newTrxid(`dup${round}`), userId: "5123" };
      const answers = await Promise.all([order(account.key, body), order(other, body), order(account.key, body), order(other, body)]);
      for (const answer of answers) {
        if (answer.status === 200) expect(answer.json.orderCreated).toBe(true);
        else expect(["FORBIDDEN", "DUPLICATE_IN_FLIGHT"]).toContain(answer.json.code);
      }
      expect(new Set(answers.filter((a) => a.status === 200).map((a) => a.json.orderId)).size).toBe(1);
    }
    const [{ n }] = await sql(`SELECT count(*)::int AS n FROM orders WHERE account_id = $1`, [account.accountId]);
    expect(n).toBe(10);
    await expectBooksBalance();
  });
});
