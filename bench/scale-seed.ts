// The scale bench's data, generated inside PostgreSQL (generate_series), in two steps:
//
//   base   the demo catalog; reseller A (the big one, whose orders all come through one key, "A1");
//          reseller B (a small one, 200 orders); 10,000 small accounts with a key and a funding
//          credit each; A's first 10,000 orders, in one month (44 to 16 days before the seed).
//          About 10,200 orders in all: the 10k baseline.
//   grow   A's next 990,000 orders (1,000,000 in all), over the 12 days before the seed, and 196
//          more wallet movements for each small account: about 1,000,200 orders and 3,000,000
//          ledger entries.
//
// A's first month is the month whose CSV statement the bench downloads at both sizes
// (ScaleIdentities.statementMonth): the same 10,000 orders, so what the 1M figure adds is the
// cost of the 990,000 orders that came after them, not a longer file. The grown orders are newer
// than the baseline's, so each key's orders and each account's ledger keep their numbers in date
// order (the bench grows a database before it places any order in it).
//
// Every row keeps the schema's invariants, which checkScaleInvariants() verifies afterwards: a
// charged order has one debit of its amount, a cancelled one also one refund; each account's
// balance is the sum of its ledger and every balance_after is the running sum (ledger ids follow
// time within an account); public ids carry the HMAC that lib/orders/public-order-id.ts checks, in
// the form ids had before the permutation (the raw id in base36), which the lib still resolves;
// each key's orders are numbered 1..api_keys.order_count (key_seq) and each account's ledger
// entries 1..accounts.ledger_count (account_seq), in id order, as placement and posting number them;
// within an account, ledger dates never go back in that order, and accounts.ledger_last_at is the
// latest (post_ledger_entry() keeps both when it posts).
// A's orders are 98% completed and 2% cancelled and refunded, half of them carry an idempotency key
// of their own (the other half use their trxid), and their player ids repeat every 5,000 orders.
// Not generated: order events, webhook events and jobs (no read path measured here reads them).
//
// Speed: the secondary indexes of orders and ledger_entries are dropped while A's rows go in and
// rebuilt after (from their own definitions), triggers are off for the session
// (session_replication_role; the rows are built to satisfy the foreign keys, and the overview's
// counts are recounted from the orders after: recount_order_stats), and pgcrypto lives in a schema
// of its own only while seeding.
import pg from "pg";
import { getPrisma } from "@/lib/db/prisma";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { ACCOUNTS_WITH_STALE_LEDGER_LAST_AT, LEDGER_OUT_OF_ORDER } from "@/lib/wallet/sql/check-ledger";

/** SCALE_ORDERS: reseller A's orders after growing (a smaller number for a quick try of the bench itself). */
export const BIG_ORDERS = Number(process.env.SCALE_ORDERS ?? 1_000_000);
const BASE_ORDERS = 10_000;
const SMALL_ACCOUNTS = 10_000;
const SMALL_RESELLER_ORDERS = 200;
/** Ledger entries per small account after growing: 1 funding credit + 196 movements. */
const SMALL_MOVEMENTS = 2 * Math.max(1, Math.round((98 * BIG_ORDERS) / 1_000_000));

export interface ScaleIdentities {
  bigAccountId: number;
  bigKeyId: number;
  bigKey: string;
  smallAccountId: number;
  smallKeyId: number;
  smallKey: string;
  /** The instants [from, to) of reseller A's first month: its CSV statement is measured at both sizes. */
  statementMonth: { from: string; to: string };
}

const DAY_MS = 86_400_000;
/** B's orders, and A's after its first month, span this long, ending at the seed (older ones first). */
const SPAN_MS = 12 * DAY_MS;
/** A's first month: its orders are dated from 44 to 16 days before the seed; the statement covers 45 to 15. */
const FIRST_MONTH = {
  ordersFrom: 44 * DAY_MS,
  ordersTo: 16 * DAY_MS,
  statementFrom: 45 * DAY_MS,
  statementTo: 15 * DAY_MS,
};

const HELPERS = `
CREATE SCHEMA IF NOT EXISTS scale_seed_tools;
CREATE EXTENSION IF NOT EXISTS pgcrypto SCHEMA scale_seed_tools;
CREATE OR REPLACE FUNCTION pg_temp.b36(n bigint, width int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', ((n / (36::numeric ^ k)::bigint) % 36)::int + 1, 1), '' ORDER BY k DESC)
    FROM generate_series(0, width - 1) k
$$;
-- lib/orders/public-order-id.ts, the form before the permutation: the raw id in base36, then
-- HMAC-SHA256("order:<id>") keyed with APP_SECRET, first 6 bytes big-endian, mod 36^6, base 36, 6 digits.
CREATE OR REPLACE FUNCTION pg_temp.public_id(code text, id bigint, secret text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'SVCAPI-' || code || '-' || ltrim(pg_temp.b36(id, 8), '0') || '-' ||
         pg_temp.b36((('x' || encode(substring(scale_seed_tools.hmac(convert_to('order:' || id, 'UTF8'), convert_to(secret, 'UTF8'), 'sha256') FROM 1 FOR 6), 'hex'))::bit(48)::bigint) % 2176782336, 6)
$$;
CREATE TEMP TABLE IF NOT EXISTS scale_products AS
  SELECT (row_number() OVER (ORDER BY p.id) - 1)::int AS n, p.id, p.catalog_id, l.slug, l.kind, l.code, p.pack_name, p.price_cents, l.supplier
    FROM products p JOIN game_lines l ON l.id = p.line_id
   WHERE l.kind = 'topup' AND p.active AND l.orderable;
`;

async function withSeedSession<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET synchronous_commit = off; SET maintenance_work_mem = '256MB'; SET work_mem = '64MB'");
    await client.query("SET session_replication_role = replica");
    await client.query(HELPERS);
    return await work(client);
  } finally {
    await client.query("DROP SCHEMA IF EXISTS scale_seed_tools CASCADE").catch(() => undefined);
    await client.end();
  }
}

/** Drops the non-primary indexes of `tables`, runs `work`, rebuilds them from their own definitions. */
async function withoutIndexes(
  client: pg.Client,
  tables: string[],
  work: () => Promise<void>,
  log: (line: string) => void,
): Promise<void> {
  const { rows } = await client.query<{ name: string; def: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i WHERE i.indrelid = ANY($1::regclass[]) AND NOT i.indisprimary`,
    [tables],
  );
  for (const row of rows) await client.query(`DROP INDEX ${row.name}`);
  try {
    await work();
  } finally {
    const started = Date.now();
    for (const row of rows) await client.query(row.def);
    log(`rebuilt ${rows.length} indexes of ${tables.join(", ")} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

/**
 * `count` more orders of account `accountId` through key `keyId`, numbered from `first` (trxid
 * trx-<n>), created between `from` and `to` (after the account's existing ones), with their
 * ledger entries after the account's current ones, in date order: a credit of 100 times the
 * dearest pack before every 100th order, the debit, and for every 50th order (cancelled) the refund.
 */
async function insertResellerOrders(
  client: pg.Client,
  o: {
    accountId: number;
    keyId: number;
    first: number;
    count: number;
    from: Date;
    to: Date;
    secret: string;
    trxPrefix: string;
  },
): Promise<void> {
  const idBase = (
    await client.query<{ n: string }>(
      `SELECT GREATEST((SELECT COALESCE(max(id), 0) FROM orders), (SELECT last_value FROM orders_id_seq)) AS n`,
    )
  ).rows[0]!.n;
  // The key's numbers continue from its counter in id order, and the counter moves past them.
  const seqBase = (
    await client.query<{ n: number }>(`SELECT order_count AS n FROM api_keys WHERE id = $1 AND account_id = $2`, [
      o.keyId,
      o.accountId,
    ])
  ).rows[0]!.n;
  await client.query(
    `INSERT INTO orders (id, public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint, product_id, catalog_id,
                         line_slug, line_kind, pack_name, unit_price_cents, quantity, amount_cents, user_id, sent_user_id,
                         order_created, status, error, refunded, supplier, supplier_ref, attempts, created_at, updated_at, finished_at, key_seq)
     SELECT x.id, pg_temp.public_id(p.code, x.id, $7), $1, $2, $8 || x.j, CASE WHEN x.j % 2 = 0 THEN 'idem-' || $8 || x.j ELSE $8 || x.j END,
            encode(scale_seed_tools.digest('scale:' || $8 || x.j, 'sha256'), 'hex'), p.id, p.catalog_id,
            p.slug, p.kind, p.pack_name, p.price_cents, 1, p.price_cents, x.player, x.player,
            true, CASE WHEN x.cancelled THEN 'cancelled' ELSE 'completed' END::"OrderStatus",
            CASE WHEN x.cancelled THEN 'SUPPLIER REJECTED' END, x.cancelled, p.supplier, 'scale-' || x.j, 1,
            x.t, x.t + x.took, x.t + x.took, $10::int + g.k
       FROM generate_series(1, $4::int) g(k)
       CROSS JOIN LATERAL (SELECT $5::bigint + g.k AS id, $3::int + g.k - 1 AS j,
                                  $6::timestamptz + (g.k::float8 / $4::int) * ($9::timestamptz - $6::timestamptz) AS t,
                                  (($3::int + g.k - 1) % 20 + 1) * interval '1 second' AS took,
                                  ($3::int + g.k - 1) % 50 = 0 AS cancelled,
                                  (1000000 + ($3::int + g.k - 1) % 5000)::text AS player) x
       JOIN scale_products p ON p.n = x.j % (SELECT count(*) FROM scale_products)`,
    [
      o.accountId,
      o.keyId,
      o.first,
      o.count,
      idBase,
      o.from.toISOString(),
      o.secret,
      o.trxPrefix,
      o.to.toISOString(),
      seqBase,
    ],
  );
  await client.query(`SELECT setval('orders_id_seq', $1::bigint + $2::int)`, [idBase, o.count]);
  await client.query(`UPDATE api_keys SET order_count = order_count + $2 WHERE id = $1`, [o.keyId, o.count]);

  const ledgerBase = (
    await client.query<{ n: string }>(
      `SELECT GREATEST((SELECT COALESCE(max(id), 0) FROM ledger_entries), (SELECT last_value FROM ledger_entries_id_seq)) AS n`,
    )
  ).rows[0]!.n;
  const inserted = await client.query(
    `WITH start AS (SELECT balance_cents, ledger_count FROM accounts WHERE id = $1),
          top AS (SELECT max(price_cents) * 100 AS credit FROM scale_products),
          entries AS (
            SELECT o.id AS oid, e.sub, e.kind, e.amount, e.order_id, e.actor, e.reason, e.at
              FROM orders o CROSS JOIN top
             CROSS JOIN LATERAL (VALUES
               (0, 'credit'::"LedgerKind", top.credit, NULL::int, 'admin:scale@bench.invalid', 'wallet top-up', o.created_at - interval '1 millisecond'),
               (1, 'debit'::"LedgerKind", -o.amount_cents, o.id, 'api-key:' || $2, NULL, o.created_at),
               (2, 'refund'::"LedgerKind", o.amount_cents, o.id, 'worker', 'SUPPLIER REJECTED', o.finished_at)
             ) e(sub, kind, amount, order_id, actor, reason, at)
             WHERE o.id > $3::bigint AND o.id <= $3::bigint + $4::int
               AND (e.sub = 1 OR (e.sub = 0 AND (o.id - $3::bigint) % 100 = 1) OR (e.sub = 2 AND o.status = 'cancelled'))
          ), inserted AS (
     INSERT INTO ledger_entries (id, account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason, created_at, account_seq)
     SELECT $5::bigint + row_number() OVER w, $1, kind, amount, (SELECT balance_cents FROM start) + sum(amount) OVER w, order_id, actor, reason, at,
            (SELECT ledger_count FROM start) + row_number() OVER w
       FROM entries WINDOW w AS (ORDER BY at, oid, sub)
     RETURNING amount_cents, kind)
     SELECT count(*)::int AS n, COALESCE(sum(amount_cents), 0)::bigint AS sum,
            COALESCE(sum(amount_cents) FILTER (WHERE kind = 'credit'), 0)::bigint AS credited FROM inserted`,
    [o.accountId, o.keyId, idBase, o.count, ledgerBase],
  );
  const { n, sum, credited } = inserted.rows[0] as { n: number; sum: string; credited: string };
  await client.query(`SELECT setval('ledger_entries_id_seq', $1::bigint + $2::int)`, [ledgerBase, n]);
  await client.query(
    `UPDATE accounts SET balance_cents = balance_cents + $2, total_credited_cents = total_credited_cents + $3, ledger_count = ledger_count + $4,
            updated_at = now() WHERE id = $1`,
    [o.accountId, sum, credited, n],
  );
}

/** Each account's ledger_last_at at its latest entry's date, as posting leaves it. */
async function stampLedgerLastAt(client: pg.Client): Promise<void> {
  await client.query(
    `UPDATE accounts a SET ledger_last_at = m.last_at
       FROM (SELECT account_id, max(created_at) AS last_at FROM ledger_entries GROUP BY account_id) m
      WHERE a.id = m.account_id AND a.ledger_last_at IS DISTINCT FROM m.last_at`,
  );
}

async function issueKey(accountId: number, name: string): Promise<{ id: number; key: string }> {
  const issued = await issueApiKey(accountId, "scale-bench", { name, maxActiveKeys: Number.MAX_SAFE_INTEGER });
  if (issued.status !== "created") throw new Error(`could not issue key ${name}: ${issued.status}`);
  return { id: issued.id, key: issued.key };
}

/** The 10k baseline (see the top of this file). */
export async function seedScaleBase(
  url: string,
  secret: string,
  log: (line: string) => void,
): Promise<ScaleIdentities> {
  await seedDemoCatalog();
  const prisma = getPrisma();
  const big = await prisma.account.create({
    data: { telegramUsername: "scale_reseller_a", displayName: "Reseller A (1M orders)", apiEnabled: true },
  });
  const small = await prisma.account.create({
    data: { telegramUsername: "scale_reseller_b", displayName: "Reseller B (200 orders)", apiEnabled: true },
  });
  const bigKey = await issueKey(big.id, "A1");
  const smallKey = await issueKey(small.id, "B1");
  const now = Date.now();

  await withSeedSession(url, async (client) => {
    // Small accounts: one key each (hash of a key nobody holds) and a $100 funding credit.
    await client.query(
      `INSERT INTO accounts (telegram_username, display_name, api_enabled, balance_cents, total_credited_cents, ledger_count, created_at, updated_at)
       SELECT 'scale_small_' || n, 'Small account ' || n, true, 10000, 10000, 1, now() - interval '30 days', now()
         FROM generate_series(1, $1::int) n`,
      [SMALL_ACCOUNTS],
    );
    await client.query(
      `INSERT INTO api_keys (account_id, key_hash, prefix, name)
       SELECT a.id, encode(scale_seed_tools.digest(k.key, 'sha256'), 'hex'), left(k.key, 12), 'scale'
         FROM accounts a CROSS JOIN LATERAL (SELECT 'svc_' || md5('scale-key-' || a.id) || 'abcdefgh' AS key) k
        WHERE a.telegram_username LIKE 'scale\\_small\\_%'`,
    );
    await client.query(
      `INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, actor, reason, created_at, account_seq)
       SELECT id, 'credit', 10000, 10000, 'admin:scale@bench.invalid', 'funding', now() - interval '30 days', 1
         FROM accounts WHERE telegram_username LIKE 'scale\\_small\\_%' ORDER BY id`,
    );
    // Reseller B: 200 orders over the last 12 days, through its key.
    await insertResellerOrders(client, {
      accountId: small.id,
      keyId: smallKey.id,
      first: 1,
      count: SMALL_RESELLER_ORDERS,
      from: new Date(now - SPAN_MS),
      to: new Date(now - 60_000),
      secret,
      trxPrefix: "b-trx-",
    });
    // Reseller A's first 10,000 orders: its first month.
    await insertResellerOrders(client, {
      accountId: big.id,
      keyId: bigKey.id,
      first: 1,
      count: BASE_ORDERS,
      from: new Date(now - FIRST_MONTH.ordersFrom),
      to: new Date(now - FIRST_MONTH.ordersTo),
      secret,
      trxPrefix: "trx-",
    });
    await stampLedgerLastAt(client);
    await client.query("SELECT recount_order_stats()");
    await client.query("VACUUM (ANALYZE)");
  });
  log(`base seeded: accounts A=${big.id} B=${small.id} and ${SMALL_ACCOUNTS} small ones`);
  return {
    bigAccountId: big.id,
    bigKeyId: bigKey.id,
    bigKey: bigKey.key,
    smallAccountId: small.id,
    smallKeyId: smallKey.id,
    smallKey: smallKey.key,
    statementMonth: {
      from: new Date(now - FIRST_MONTH.statementFrom).toISOString(),
      to: new Date(now - FIRST_MONTH.statementTo).toISOString(),
    },
  };
}

/**
 * To 1M: A's next 990,000 orders (12 days back to 3 hours ago) and the small accounts' wallet
 * movements (credits of $3 and adjustments of -$1, alternating). Run before any order is placed
 * in the database: the grown orders go after what is there, in number and in date.
 */
export async function growScale(
  url: string,
  secret: string,
  ids: ScaleIdentities,
  log: (line: string) => void,
): Promise<void> {
  const now = Date.now();
  await withSeedSession(url, async (client) => {
    await withoutIndexes(
      client,
      ["orders", "ledger_entries"],
      async () => {
        let started = Date.now();
        await insertResellerOrders(client, {
          accountId: ids.bigAccountId,
          keyId: ids.bigKeyId,
          first: BASE_ORDERS + 1,
          count: BIG_ORDERS - BASE_ORDERS,
          from: new Date(now - SPAN_MS),
          to: new Date(now - 3 * 3_600_000 - 1_000),
          secret,
          trxPrefix: "trx-",
        });
        log(`A's orders and ledger to ${BIG_ORDERS} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        started = Date.now();
        const base = (
          await client.query<{ n: string }>(
            `SELECT GREATEST((SELECT max(id) FROM ledger_entries), (SELECT last_value FROM ledger_entries_id_seq)) AS n`,
          )
        ).rows[0]!.n;
        const inserted = await client.query(
          `INSERT INTO ledger_entries (id, account_id, kind, amount_cents, balance_after_cents, actor, reason, created_at, account_seq)
         SELECT $1::bigint + row_number() OVER (ORDER BY a.id, m.k), a.id,
                CASE WHEN m.k % 2 = 1 THEN 'credit' ELSE 'adjustment' END::"LedgerKind",
                CASE WHEN m.k % 2 = 1 THEN 300 ELSE -100 END,
                a.balance_cents + sum(CASE WHEN m.k % 2 = 1 THEN 300 ELSE -100 END) OVER (PARTITION BY a.id ORDER BY m.k),
                CASE WHEN m.k % 2 = 1 THEN 'admin:scale@bench.invalid' ELSE 'telegram:1' END,
                CASE WHEN m.k % 2 = 1 THEN 'wallet top-up' ELSE 'correction' END,
                now() - interval '29 days' + m.k * interval '3 hours', a.ledger_count + m.k
           FROM accounts a CROSS JOIN generate_series(1, $2::int) m(k)
          WHERE a.telegram_username LIKE 'scale\\_small\\_%'`,
          [base, SMALL_MOVEMENTS],
        );
        await client.query(`SELECT setval('ledger_entries_id_seq', $1::bigint + $2::int)`, [base, inserted.rowCount]);
        await client.query(
          `UPDATE accounts SET balance_cents = balance_cents + $1, total_credited_cents = total_credited_cents + $2, ledger_count = ledger_count + $3
          WHERE telegram_username LIKE 'scale\\_small\\_%'`,
          [(SMALL_MOVEMENTS / 2) * 300 - (SMALL_MOVEMENTS / 2) * 100, (SMALL_MOVEMENTS / 2) * 300, SMALL_MOVEMENTS],
        );
        log(`${inserted.rowCount} small-account ledger entries in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        await stampLedgerLastAt(client);
      },
      log,
    );
    await client.query("SELECT recount_order_stats()");
    const started = Date.now();
    await client.query("VACUUM (ANALYZE) orders, ledger_entries, accounts, api_keys");
    log(`vacuum analyze in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
}

/** The books, checked in SQL (lib's checkLedger reads every order into memory, too much at 1M). */
export async function checkScaleInvariants(pool: pg.Pool): Promise<string[]> {
  const problems: string[] = [];
  const q = async (label: string, sql: string) => {
    const n = Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);
    if (n !== 0) problems.push(`${label}: ${n}`);
  };
  await q(
    "accounts whose balance is not the sum of their ledger",
    `SELECT count(*) AS n FROM accounts a LEFT JOIN (SELECT account_id, sum(amount_cents) s FROM ledger_entries GROUP BY account_id) l ON l.account_id = a.id
      WHERE a.balance_cents <> COALESCE(l.s, 0) OR a.balance_cents < 0`,
  );
  await q(
    "ledger entries whose balance_after is not the running sum",
    `SELECT count(*) AS n FROM (SELECT balance_after_cents, sum(amount_cents) OVER (PARTITION BY account_id ORDER BY id) r FROM ledger_entries) t WHERE balance_after_cents <> r`,
  );
  // (order_id, kind) is unique, so "a debit" is "exactly one debit".
  await q(
    "charged orders without a debit of their amount",
    `SELECT count(*) AS n FROM orders o LEFT JOIN ledger_entries l ON l.order_id = o.id AND l.kind = 'debit'
      WHERE o.order_created AND (l.id IS NULL OR l.amount_cents <> -o.amount_cents)`,
  );
  await q(
    "cancelled charged orders without their refund",
    `SELECT count(*) AS n FROM orders o LEFT JOIN ledger_entries l ON l.order_id = o.id AND l.kind = 'refund'
      WHERE o.order_created AND o.status = 'cancelled' AND (l.id IS NULL OR l.amount_cents <> o.amount_cents OR NOT o.refunded)`,
  );
  await q(
    "refunds of orders that are not cancelled",
    `SELECT count(*) AS n FROM ledger_entries l JOIN orders o ON o.id = l.order_id WHERE l.kind = 'refund' AND o.status <> 'cancelled'`,
  );
  await q(
    "orders whose account or key does not exist or differs",
    `SELECT count(*) AS n FROM orders o LEFT JOIN api_keys k ON k.id = o.api_key_id WHERE k.id IS NULL OR k.account_id <> o.account_id`,
  );
  // key_seq and account_seq are unique per key and per account, so count = max = counter is 1..n.
  await q(
    "keys whose orders are not numbered 1..order_count",
    `SELECT count(*) AS n FROM api_keys k
       LEFT JOIN (SELECT api_key_id, count(*) c, max(key_seq) m FROM orders GROUP BY api_key_id) o ON o.api_key_id = k.id
      WHERE k.order_count <> COALESCE(o.c, 0) OR k.order_count <> COALESCE(o.m, 0)`,
  );
  await q(
    "accounts whose ledger is not numbered 1..ledger_count",
    `SELECT count(*) AS n FROM accounts a
       LEFT JOIN (SELECT account_id, count(*) c, max(account_seq) m FROM ledger_entries GROUP BY account_id) l ON l.account_id = a.id
      WHERE a.ledger_count <> COALESCE(l.c, 0) OR a.ledger_count <> COALESCE(l.m, 0)`,
  );
  await q(
    "ledger entries dated before, or with an id below, their account's previous entry",
    `SELECT count(*) AS n FROM (${LEDGER_OUT_OF_ORDER}) t`,
  );
  await q(
    "accounts whose ledger_last_at is before their latest entry",
    `SELECT count(*) AS n FROM (${ACCOUNTS_WITH_STALE_LEDGER_LAST_AT}) t`,
  );
  await q(
    "ledger entries of a missing order",
    `SELECT count(*) AS n FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id WHERE l.order_id IS NOT NULL AND o.id IS NULL`,
  );
  return problems;
}
