// The books must balance. Run after every money test (and by the benchmark): returns every
// violation found, so an empty list means the books balance.
import type pg from "pg";
import { getPool } from "../../db/pool";

// GET /ledger?format=csv reads a balance at a time from the last entry dated before it, and a
// range's entries as one run of ids: within an account, dates never go back and ids rise with
// account_seq (the entries that break either); and the account's ledger_last_at, from which the
// next posting is dated, is not before its latest entry (the accounts where it is). The scale
// bench counts the same at a million orders (bench/scale-seed.ts).
export const LEDGER_OUT_OF_ORDER = `SELECT id, account_id, created_at < previous_at AS dated_back FROM (
    SELECT id, account_id, created_at, lag(created_at) OVER w AS previous_at, lag(id) OVER w AS previous_id
      FROM ledger_entries WINDOW w AS (PARTITION BY account_id ORDER BY account_seq)) t
   WHERE created_at < previous_at OR id < previous_id`;
export const ACCOUNTS_WITH_STALE_LEDGER_LAST_AT = `SELECT a.id FROM accounts a JOIN ledger_entries l ON l.account_id = a.id
   GROUP BY a.id HAVING a.ledger_last_at IS NULL OR a.ledger_last_at < max(l.created_at)`;

/** `pool`: another database's (a fault test's own cluster); this process's by default. */
export async function checkLedger(pool: pg.Pool = getPool()): Promise<string[]> {
  // One check after the other: the problems come in this order.
  const problems: string[] = [];
  for (const check of [balanceProblems, numberingProblems, chargeProblems, codeProblems])
    problems.push(...(await check(pool)));
  return problems;
}

/** Balances that are not the sum of their ledger, or below zero; entries whose running balance is off. */
async function balanceProblems(pool: pg.Pool): Promise<string[]> {
  const problems: string[] = [];
  const balances = await pool.query(
    `SELECT a.id, a.balance_cents, COALESCE(sum(l.amount_cents), 0)::bigint AS ledger_sum
       FROM accounts a LEFT JOIN ledger_entries l ON l.account_id = a.id
      GROUP BY a.id HAVING a.balance_cents <> COALESCE(sum(l.amount_cents), 0) OR a.balance_cents < 0`,
  );
  for (const row of balances.rows)
    problems.push(`account ${row.id}: balance ${row.balance_cents} but ledger sums to ${row.ledger_sum}`);

  const running = await pool.query(
    `SELECT id, account_id FROM (
       SELECT id, account_id, balance_after_cents,
              sum(amount_cents) OVER (PARTITION BY account_id ORDER BY id) AS running
         FROM ledger_entries) t
      WHERE balance_after_cents <> running LIMIT 20`,
  );
  for (const row of running.rows)
    problems.push(`ledger entry ${row.id} (account ${row.account_id}): balance_after does not match the running sum`);

  return problems;
}

/** Numbering and dating of entries and orders that the API's pages rest on. */
async function numberingProblems(pool: pg.Pool): Promise<string[]> {
  const problems: string[] = [];
  // GET /ledger's total and pages rest on each account's entries being numbered 1..ledger_count, and
  // GET /history's on each key's orders being numbered 1..order_count. The numbers are unique per
  // account and per key (unique indexes), so count = max = counter means exactly 1..n.
  const numbering = await pool.query(
    `SELECT 'account' AS owner, a.id, a.ledger_count AS counter, count(l.id) AS n, COALESCE(max(l.account_seq), 0) AS top
       FROM accounts a LEFT JOIN ledger_entries l ON l.account_id = a.id
      GROUP BY a.id HAVING a.ledger_count <> count(l.id) OR a.ledger_count <> COALESCE(max(l.account_seq), 0)
     UNION ALL
     SELECT 'key', k.id, k.order_count, count(o.id), COALESCE(max(o.key_seq), 0)
       FROM api_keys k LEFT JOIN orders o ON o.api_key_id = k.id
      GROUP BY k.id HAVING k.order_count <> count(o.id) OR k.order_count <> COALESCE(max(o.key_seq), 0)`,
  );
  for (const row of numbering.rows)
    problems.push(`${row.owner} ${row.id}: counter ${row.counter} but ${row.n} rows numbered up to ${row.top}`);

  const order = await pool.query(`${LEDGER_OUT_OF_ORDER} LIMIT 20`);
  for (const row of order.rows) {
    problems.push(
      `ledger entry ${row.id} (account ${row.account_id}): ${row.dated_back ? "dated before" : "an id below"} the account's previous entry`,
    );
  }
  const lastAt = await pool.query(ACCOUNTS_WITH_STALE_LEDGER_LAST_AT);
  for (const row of lastAt.rows) problems.push(`account ${row.id}: ledger_last_at is before its latest ledger entry`);

  return problems;
}

/**
 * Orders charged other than exactly once, refunded other than once when cancelled, or, completed,
 * refunded other than by their refund request's decision.
 */
async function chargeProblems(pool: pg.Pool): Promise<string[]> {
  const problems: string[] = [];
  const orders = await pool.query(
    `SELECT o.id, o.status, o.order_created, o.amount_cents, o.refunded, r.refund_cents AS request_refund_cents,
            count(*) FILTER (WHERE l.kind = 'debit') AS debits, count(*) FILTER (WHERE l.kind = 'refund') AS refunds,
            COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'debit'), 0) AS debited,
            COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'refund'), 0) AS refunded_cents
       FROM orders o LEFT JOIN ledger_entries l ON l.order_id = o.id
       LEFT JOIN refund_requests r ON r.order_id = o.id AND r.status = 'refunded'
      GROUP BY o.id, r.refund_cents`,
  );
  for (const o of orders.rows) {
    const charged = o.order_created;
    if (charged && (Number(o.debits) !== 1 || Number(o.debited) !== -o.amount_cents))
      problems.push(`order ${o.id}: charged order without exactly one debit of its amount`);
    if (!charged && Number(o.debits) !== 0) problems.push(`order ${o.id}: debited although not created`);
    const shouldRefund = charged && o.status === "cancelled";
    if (shouldRefund && (Number(o.refunds) !== 1 || Number(o.refunded_cents) !== o.amount_cents || !o.refunded)) {
      problems.push(`order ${o.id}: charged and cancelled without exactly one full refund`);
    }
    const requested = charged && o.status === "completed" && o.request_refund_cents !== null;
    if (requested && (Number(o.refunds) !== 1 || Number(o.refunded_cents) !== Number(o.request_refund_cents)))
      problems.push(`order ${o.id}: refund request decided without exactly one refund of its amount`);
    if (requested && Number(o.request_refund_cents) > o.amount_cents)
      problems.push(`order ${o.id}: refunded more than it was charged`);
    if (!shouldRefund && !requested && Number(o.refunds) !== 0)
      problems.push(`order ${o.id}: refunded although ${o.status}`);
  }
  return problems;
}

/**
 * Codes whose state does not match their order's, and orders holding the wrong number of codes. A
 * completed order refunded by its refund request holds its codes revoked, or none when restocked.
 */
async function codeProblems(pool: pg.Pool): Promise<string[]> {
  const problems: string[] = [];
  const codes = await pool.query(
    `SELECT c.id, c.status, c.order_id, o.status AS order_status, o.line_kind
       FROM inventory_codes c LEFT JOIN orders o ON o.id = c.order_id
       LEFT JOIN refund_requests r ON r.order_id = o.id AND r.status = 'refunded'
      WHERE (c.status = 'delivered' AND (o.status IS DISTINCT FROM 'completed' OR r.id IS NOT NULL))
         OR (c.status = 'revoked' AND (o.status IS DISTINCT FROM 'completed' OR r.id IS NULL OR r.restocked))
         OR (c.status = 'reserved' AND o.status NOT IN ('pending', 'processing'))`,
  );
  for (const c of codes.rows)
    problems.push(`code ${c.id}: ${c.status} but its order ${c.order_id} is ${c.order_status}`);
  // A test order holds no code at all: its codes are generated (lib/codes/test-codes.ts).
  const counts = await pool.query(
    `SELECT o.id FROM orders o LEFT JOIN inventory_codes c ON c.order_id = o.id
       LEFT JOIN refund_requests r ON r.order_id = o.id AND r.status = 'refunded'
      WHERE o.line_kind <> 'topup' AND o.order_created
      GROUP BY o.id, o.status, o.quantity, o.livemode, r.id, r.restocked
     HAVING (NOT o.livemode AND count(c.id) <> 0)
         OR (o.livemode AND o.status IN ('pending', 'processing')
             AND count(c.id) FILTER (WHERE c.status = 'reserved') <> o.quantity)
         OR (o.livemode AND o.status = 'completed' AND r.id IS NULL
             AND count(c.id) FILTER (WHERE c.status = 'delivered') <> o.quantity)
         OR (o.livemode AND o.status = 'completed' AND r.id IS NOT NULL
             AND count(c.id) FILTER (WHERE c.status = 'revoked') <> CASE WHEN r.restocked THEN 0 ELSE o.quantity END)
         OR (o.status = 'cancelled' AND count(c.id) <> 0)`,
  );
  for (const o of counts.rows) problems.push(`order ${o.id}: holds the wrong number of codes for its status`);
  return problems;
}
