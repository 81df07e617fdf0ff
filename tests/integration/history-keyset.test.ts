// GET /history and GET /ledger page by keyset on per-key and per-account numbers (orders.key_seq,
// ledger_entries.account_seq) whose counters (api_keys.order_count, accounts.ledger_count) the
// writing statement bumps: over real HTTP and PostgreSQL, the numbers stay 1..n without gaps under
// parallel placements (including placements that roll back on stock), and every page and total
// equals what the OFFSET and count(*) over id order answer.
import { describe, expect, it } from "vitest";
import { getPool } from "@/lib/db/pool";
import { api, type ApiResult } from "../helpers/api";
import { sql, sqlRow, waitUntilBlockedBy } from "../helpers/db";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { insertLedgerHistory } from "../helpers/ledger-history";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase({ checkBooks: true });

/** The key's numbers in one snapshot: its counter and its orders' key_seq, ascending. */
async function keyNumbering(keyId: number) {
  const row = await sqlRow<{ counter: number; seqs: number[] }>(
    `SELECT k.order_count AS counter, COALESCE((SELECT array_agg(key_seq ORDER BY key_seq) FROM orders WHERE api_key_id = k.id), '{}') AS seqs
       FROM api_keys k WHERE k.id = $1`,
    [keyId],
  );
  return row;
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("numbers under parallel placements", () => {
  it("each key's orders are 1..N and the account's ledger 1..M, without gaps from stock failures, and the books balance", async () => {
    const price = 499;
    // Phase 1 costs at most 35 orders; the funding leaves exactly 7 more for phase 2.
    const account = await createAccount({ balanceCents: 42 * price });
    const second = await issueTestKey(account.accountId);
    const keys = [
      { key: account.key, keyId: account.keyId },
      { key: second.key, keyId: second.id },
    ];
    // No AAA keys in stock: each such placement is debited, then rolls back on stock.
    await sql(`DELETE FROM inventory_codes WHERE product_id = (SELECT id FROM products WHERE catalog_id = 'SVCGKAAA')`);
    const { indie } = await sqlRow<{ indie: number }>(
      `SELECT count(*)::int AS indie FROM inventory_codes c JOIN products p ON p.id = c.product_id WHERE p.catalog_id = 'SVCGKINDIE' AND c.status = 'available'`,
    );
    expect(indie).toBe(5);

    const answered = new Map<number, ApiResult[]>(keys.map((k) => [k.keyId, []]));
    const place = async (k: (typeof keys)[number], body: Record<string, unknown>) => {
      const res = await order(k.key, { trxid: newTrxid(`k${k.keyId}`), ...body });
      answered.get(k.keyId)!.push(res);
      return res;
    };
    // Phase 1, all at once on both keys: 30 top-ups, 8 INDIE keys for 5 in stock, 6 AAA for none.
    const phase1 = await Promise.all(
      keys.flatMap((k) => [
        ...Array.from({ length: 15 }, () => place(k, { pid: "SVCBR325", userId: "77" })),
        ...Array.from({ length: 4 }, () => place(k, { pid: "SVCGKINDIE", quantity: 1 })),
        ...Array.from({ length: 3 }, () => place(k, { pid: "SVCGKAAA", quantity: 1 })),
      ]),
    );
    const stockFailures = phase1.filter((a) => a.json?.code === "INSUFFICIENT_STOCK");
    expect(stockFailures.length).toBe(3 + 6);
    expect(phase1.filter((a) => a.status === 200 && a.json.orderCreated).length).toBe(35);
    // Phase 2: 20 more top-ups for a wallet that covers 7; the others are stored cancelled.
    const phase2 = await Promise.all(
      keys.flatMap((k) => Array.from({ length: 10 }, () => place(k, { pid: "SVCBR325", userId: "77" }))),
    );
    expect(phase2.every((a) => a.status === 200)).toBe(true);
    expect(phase2.filter((a) => a.json.orderCreated).length).toBe(7);
    expect(phase2.filter((a) => !a.json.orderCreated).every((a) => a.json.error === "INSUFFICIENT BALANCE")).toBe(true);

    for (const k of keys) {
      const stored = answered.get(k.keyId)!.filter((a) => a.status === 200);
      const { counter, seqs } = await keyNumbering(k.keyId);
      expect(counter).toBe(stored.length);
      expect(seqs).toEqual(oneToN(stored.length));
      // The key's orders in DB are exactly those it was answered with an invoice for.
      const rows = await sql<{ public_id: string }>(`SELECT public_id FROM orders WHERE api_key_id = $1`, [k.keyId]);
      expect(rows.map((r) => r.public_id).sort()).toEqual(stored.map((a) => a.json.orderId).sort());
      // And /history's exact total says the same.
      const page = await api("/history?page=1&pageSize=50", { key: k.key });
      expect(page.json).toMatchObject({ total: stored.length, count: stored.length, hasMore: false });
    }

    // The ledger in one snapshot: 1..M, the counter M, the balance the sum of the entries.
    const books = await sqlRow<{ counter: number; seqs: number[]; balance: string; sum: string }>(
      `SELECT a.ledger_count AS counter, a.balance_cents AS balance,
              (SELECT array_agg(account_seq ORDER BY account_seq) FROM ledger_entries WHERE account_id = a.id) AS seqs,
              (SELECT sum(amount_cents) FROM ledger_entries WHERE account_id = a.id) AS sum
         FROM accounts a WHERE a.id = $1`,
      [account.accountId],
    );
    expect(books.seqs).toEqual(oneToN(books.counter));
    expect(Number(books.balance)).toBe(Number(books.sum));
    // The funding credit and one debit per charged order (no refunds: "77" completes).
    expect(books.counter).toBe(1 + 35 + 7);
    expect(Number(books.balance)).toBe(0);
    const ledger = await api("/ledger?pageSize=500", { key: account.key });
    expect(ledger.json).toMatchObject({ total: books.counter, hasMore: false });
    expect(ledger.json.entries).toHaveLength(books.counter);
  });
});

describe("lock order", () => {
  // The bot's account commands lock the account's row, then may update one of its keys
  // (lib/accounts/manage-ip-allowlist.ts). A placement takes the account before the key, so a
  // placement that arrives in between waits for the command instead of deadlocking with it.
  it("a placement waiting on a locked account does not hold its key against the account's command", async () => {
    const account = await createAccount({ balanceCents: 1_000 });
    const command = await getPool().connect();
    try {
      await command.query("BEGIN");
      await command.query(`SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, [account.accountId]);
      const placing = order(account.key, { pid: "SVCBR60", trxid: newTrxid("locked"), userId: "77" });
      // Wait until the placement is blocked on the account's row.
      await waitUntilBlockedBy(command);
      await command.query(`UPDATE api_keys SET require_ip_allowlist = require_ip_allowlist WHERE id = $1`, [
        account.keyId,
      ]);
      await command.query("COMMIT");
      const placed = await placing;
      expect(placed.status, placed.text).toBe(200);
      expect(placed.json.orderCreated).toBe(true);
      expect((await keyNumbering(account.keyId)).seqs).toEqual([1]);
    } finally {
      await command.query("ROLLBACK").catch(() => undefined);
      command.release();
    }
  });
});

describe("deep pages equal the OFFSET over id order", () => {
  it("GET /history: every page size, first, middle, last and past-the-end pages, total and hasMore exact; other keys apart", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const other = await issueTestKey(account.accountId);
    const stranger = await createAccount({ balanceCents: 10_000 });
    for (let i = 0; i < 3; i++) await order(account.key, { pid: "SVCBR60", trxid: newTrxid("before"), userId: "77" });
    // 1,200 older-style orders in one statement that numbers them as placement does (cancelled and
    // never charged, so the books need no ledger for them), between real placements.
    const bulk = 1200;
    await sql(
      `WITH numbered AS (UPDATE api_keys SET order_count = order_count + $3 WHERE id = $2 AND account_id = $1 RETURNING order_count - $3 AS base)
       INSERT INTO orders (public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint, catalog_id, line_slug, line_kind,
                           pack_name, unit_price_cents, amount_cents, status, order_created, error, key_seq)
       SELECT 'SVCAPI-BR-BULK' || g || '-' || $2, $1, $2, 'bulk-' || g, 'bulk-' || g, 'fp', 'SVCBR60', 'br', 'topup',
              '60 UC', 99, 99, 'cancelled', false, 'INSUFFICIENT BALANCE', numbered.base + g
         FROM numbered, generate_series(1, $3::int) g ORDER BY g`,
      [account.accountId, account.keyId, bulk],
    );
    for (let i = 0; i < 4; i++) {
      await order(account.key, { pid: "SVCBR60", trxid: newTrxid("after"), userId: "77" });
      await order(other.key, { pid: "SVCBR60", trxid: newTrxid("other"), userId: "77" });
      await order(stranger.key, { pid: "SVCBR60", trxid: newTrxid("stranger"), userId: "77" });
    }
    const total = 3 + bulk + 4;

    const expected = async (limit: number, offset: number) =>
      (
        await sql<{ public_id: string }>(
          `SELECT public_id FROM orders WHERE account_id = $1 AND api_key_id = $2 ORDER BY id DESC LIMIT $3 OFFSET $4`,
          [account.accountId, account.keyId, limit, offset],
        )
      ).map((r) => r.public_id);

    for (const pageSize of [1, 7, 20, 50]) {
      const last = Math.ceil(total / pageSize);
      for (const page of [1, 2, Math.floor(last / 2), last - 1, last, last + 1, 100_000]) {
        const res = await api(`/history?page=${page}&pageSize=${pageSize}`, { key: account.key });
        expect(res.status).toBe(200);
        const want = await expected(pageSize, (page - 1) * pageSize);
        expect(
          res.json.orders.map((o: any) => o.orderId),
          `page ${page} of ${pageSize}`,
        ).toEqual(want);
        expect(res.json).toMatchObject({
          success: true,
          count: want.length,
          page,
          pageSize,
          total,
          hasMore: page * pageSize < total,
        });
      }
    }
    const simple = await api("/history?limit=200", { key: account.key });
    expect(simple.json.orders.map((o: any) => o.orderId)).toEqual(await expected(200, 0));
    // The other key of the account and the other account see only their own 4.
    for (const k of [other.key, stranger.key]) {
      const page = await api("/history?page=1&pageSize=50", { key: k });
      expect(page.json).toMatchObject({ total: 4, count: 4, hasMore: false });
    }
  });

  it("GET /ledger: pages of every size equal the OFFSET over id order, with the exact total", async () => {
    const account = await createAccount();
    await insertLedgerHistory(account.accountId, {
      start: new Date("2026-10-01T00:00:00Z"),
      stepSeconds: 60,
      count: 1500,
    });
    const funded = await createAccount({ balanceCents: 5000 });
    await order(funded.key, { pid: "SVCBR60", trxid: newTrxid("other-account"), userId: "77" });
    const total = 1500;
    for (const pageSize of [1, 13, 50, 500]) {
      const last = Math.ceil(total / pageSize);
      for (const page of [1, 2, Math.floor(last / 2), last, last + 1]) {
        const res = await api(`/ledger?page=${page}&pageSize=${pageSize}`, { key: account.key });
        expect(res.status).toBe(200);
        const want = await sql<{ id: number }>(
          // An entry's public id is its number within the account.
          `SELECT account_seq::int AS id FROM ledger_entries WHERE account_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
          [account.accountId, pageSize, (page - 1) * pageSize],
        );
        expect(
          res.json.entries.map((e: any) => e.id),
          `page ${page} of ${pageSize}`,
        ).toEqual(want.map((r) => r.id));
        expect(res.json).toMatchObject({ success: true, page, pageSize, total, hasMore: page * pageSize < total });
      }
    }
    const other = await api("/ledger", { key: funded.key });
    expect(other.json).toMatchObject({ total: 2, hasMore: false });
    expect(other.json.entries.map((e: any) => e.type)).toEqual(["debit", "credit"]);
  });
});

describe("a small key's page beside a big key's orders", () => {
  it("answers the newest orders of the small key only, and its exact total", async () => {
    const big = await createAccount();
    const small = await createAccount();
    // 20,000 uncharged orders (stored cancelled, as a refusal for balance stores them: no money moves),
    // every 500th of them the small key's, so its 40 orders lie on 40 different heap pages.
    await sql(
      `WITH pack AS (SELECT p.id, p.catalog_id, l.slug, l.kind, p.pack_name, p.price_cents FROM products p JOIN game_lines l ON l.id = p.line_id WHERE p.catalog_id = 'SVCBR60'),
            rows AS (SELECT g, g % 500 = 0 AS mine FROM generate_series(1, 20000) g)
       INSERT INTO orders (public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint, product_id, catalog_id, line_slug, line_kind,
                           pack_name, unit_price_cents, quantity, amount_cents, order_created, status, error, finished_at, key_seq)
       SELECT 'SVCAPI-BR-PLAN' || g, CASE WHEN mine THEN $2::int ELSE $1::int END, CASE WHEN mine THEN $4::int ELSE $3::int END, 'plan-' || g, 'plan-' || g, 'x',
              pack.id, pack.catalog_id, pack.slug, pack.kind, pack.pack_name, pack.price_cents, 1, pack.price_cents, false, 'cancelled', 'INSUFFICIENT BALANCE', now(),
              row_number() OVER (PARTITION BY mine ORDER BY g)
         FROM rows, pack ORDER BY g`,
      [big.accountId, small.accountId, big.keyId, small.keyId],
    );
    await sql(
      `UPDATE api_keys k SET order_count = (SELECT count(*) FROM orders o WHERE o.api_key_id = k.id) WHERE k.id IN ($1, $2)`,
      [big.keyId, small.keyId],
    );

    const page = await api("/history?page=1&pageSize=20", { key: small.key });
    expect(page.status).toBe(200);
    expect(page.json).toMatchObject({ total: 40, count: 20, hasMore: true });
    expect(page.json.orders.map((o: { trxid: string }) => o.trxid)).toEqual(
      Array.from({ length: 20 }, (_, i) => `plan-${(40 - i) * 500}`),
    );
  });
});
