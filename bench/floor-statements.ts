// The statements of the floor (floor-server.ts) that are not the service's. For the key lookup,
// GET /balance, GET /products and GET /history the floor calls the service's own lib functions, so it
// sends the very same statements. Where and why the floor differs from the service:
// - POST /orders is one CTE statement after the key lookup (PLACE_ORDER below): the best placement
//   we know in plain SQL, so the ratio says how far the service's two statements after the key
//   lookup (its placement's lookup, then place_order()) and its validation in Node between them are
//   from it. The floor checks the catalog entry inside the statement, takes order ids from blocks it
//   reserves in advance (RESERVE_ORDER_IDS), handles top-ups only (no code reservation, no stock
//   check) and checks no body fields but pid, trxid and userId.
// - GET /orders/:id reads public and numeric ids by primary key (ORDER_BY_ID); the service also ranks
//   trxids and idempotency keys (the bench sends public ids).
// - No rate limiter, no settings read, no account-eligibility, allowlist or switch checks, no
//   last-used stamping, no zod, no Request/Response objects: the service's own cost.

/** $1 order id, $2 account id; the row in the service's order_record() shape. */
export const ORDER_BY_ID = `SELECT (order_record(o)).* FROM orders o WHERE o.id = $1 AND o.account_id = $2`;

/** The floor's own: order ids reserved in blocks, so the public id is known before the placing statement. */
export const RESERVE_ORDER_IDS = `SELECT nextval(pg_get_serial_sequence('orders', 'id'))::int AS id FROM generate_series(1, $1::int)`;

/**
 * The floor's own placement, one statement and its own transaction, writing what the service's
 * placement writes for a top-up: the idempotency key's in-flight lock and existing order, the
 * catalog checks, the key's next order number (key_seq), the conditional debit with the account's
 * next ledger number and date, the order row (cancelled with INSUFFICIENT BALANCE when the debit
 * fails), the ledger entry, the order event, the fulfilment job (add_job's unsafe_dedupe path,
 * keyed `place:<id>`), and balance.low's outbox event and deliveries when the debit crosses the
 * threshold. The answer is one row: the gate's flags and the order, new or existing, as an
 * OrderRecord. A concurrent duplicate that commits after this statement's snapshot fails the
 * insert with 23505, as in the service.
 *
 * The price is the caller's, as the service's catalog_entry reads it: pack_price() at the caller's
 * price tier, one probe of price_tier_prices' primary key.
 *
 * $1 account id, $2 idempotency key, $3 pid, $4 order id, $5 public id after "SVCAPI-<line code>-",
 * $6 key id, $7 trxid, $8 request fingerprint, $9 userId, $10 actor, $11 the balance.low event's id,
 * $12 the caller's price tier (null: list prices).
 */
export const PLACE_ORDER = `
  WITH opened AS (
    SELECT pg_try_advisory_xact_lock(hashtextextended($1::int || ':' || $2::text, 0)) AS locked,
           EXISTS (SELECT 1 FROM orders o WHERE o.account_id = $1 AND o.idempotency_key = $2) AS existing,
           p.id IS NOT NULL AS known,
           COALESCE(p.active AND l.available AND l.orderable AND l.kind = 'topup' AND COALESCE(p.supplier_sku, '') <> '', false) AS orderable,
           p.id AS product_id, p.catalog_id, p.pack_name,
           pack_price(p.price_cents, tp.price_cents, tp.percent_off_bp) AS price_cents, l.slug, l.code, l.kind, l.supplier
      FROM (SELECT 1) one
      LEFT JOIN (products p JOIN game_lines l ON l.id = p.line_id) ON p.catalog_id = $3
      LEFT JOIN price_tier_prices tp ON tp.price_tier_id = $12::int AND tp.product_id = p.id
  ), accepted AS (
    SELECT * FROM opened WHERE locked AND NOT existing AND orderable
  ), numbered AS (
    UPDATE api_keys k SET order_count = k.order_count + 1
      FROM accepted
     WHERE k.id = $6 AND k.account_id = $1
    RETURNING k.order_count
  ), debit AS (
    UPDATE accounts a
       SET balance_cents = a.balance_cents - accepted.price_cents, ledger_count = a.ledger_count + 1,
           ledger_last_at = greatest(now(), a.ledger_last_at), updated_at = now()
      FROM accepted
     WHERE a.id = $1 AND a.balance_cents - accepted.price_cents >= 0
    RETURNING a.balance_cents, a.low_balance_threshold_cents, a.ledger_count, a.ledger_last_at, accepted.price_cents
  ), ins AS (
    INSERT INTO orders (id, public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint, product_id,
                        catalog_id, line_slug, line_kind, pack_name, unit_price_cents, quantity, amount_cents,
                        user_id, zone_id, server_id, sent_user_id, sent_zone_id, sent_server_id, status, supplier,
                        order_created, error, finished_at, key_seq)
    SELECT $4, 'SVCAPI-' || accepted.code || '-' || $5, $1, $6, $7, $2, $8, accepted.product_id,
           accepted.catalog_id, accepted.slug, accepted.kind, accepted.pack_name, accepted.price_cents, 1, accepted.price_cents,
           $9, NULL, NULL, $9, NULL, NULL,
           (CASE WHEN d.charged THEN 'processing' ELSE 'cancelled' END)::"OrderStatus", accepted.supplier,
           d.charged, CASE WHEN d.charged THEN NULL ELSE 'INSUFFICIENT BALANCE' END, CASE WHEN d.charged THEN NULL ELSE now() END,
           numbered.order_count
      FROM accepted, numbered, (SELECT EXISTS (SELECT 1 FROM debit) AS charged) d
    RETURNING (order_record(orders)).*
  ), ledger AS (
    INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason, audit_log_id, account_seq, created_at)
    SELECT $1, 'debit', -debit.price_cents, debit.balance_cents, ins.id, $10, 'order ' || ins."publicId", NULL, debit.ledger_count, debit.ledger_last_at
      FROM debit, ins
  ), event AS (
    INSERT INTO order_events (order_id, from_status, to_status, reason, data)
    SELECT ins.id, NULL, ins.status,
           CASE WHEN ins."orderCreated" THEN 'placed: wallet debited, queued for fulfilment' ELSE 'INSUFFICIENT BALANCE: nothing charged' END, NULL
      FROM ins
  ), job AS (
    SELECT graphile_worker.add_job('fulfil_order', json_build_object('orderId', ins.id), max_attempts := 25,
                                   job_key := 'place:' || ins.id, job_key_mode := 'unsafe_dedupe')
      FROM ins WHERE ins."orderCreated"
  ), low AS (
    SELECT debit.balance_cents AS after_cents, debit.low_balance_threshold_cents AS threshold_cents
      FROM debit
     WHERE debit.balance_cents + debit.price_cents >= debit.low_balance_threshold_cents
       AND debit.balance_cents < debit.low_balance_threshold_cents
  ), seq AS (
    INSERT INTO event_sequences (account_id, last_sequence) SELECT $1, 1 FROM low
    ON CONFLICT (account_id) DO UPDATE SET last_sequence = event_sequences.last_sequence + 1
    RETURNING last_sequence
  ), low_event AS (
    INSERT INTO webhook_events (public_id, account_id, sequence, type, data)
    SELECT $11, $1, seq.last_sequence, 'balance.low',
           json_build_object('balanceUsd', low.after_cents::float8 / 100, 'currency', 'USD', 'thresholdUsd', low.threshold_cents::float8 / 100)
      FROM seq, low
    RETURNING id
  ), delivery AS (
    INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
    SELECT low_event.id, e.id, now() FROM low_event, webhook_endpoints e
     WHERE e.account_id = $1 AND e.disabled_at IS NULL AND (cardinality(e.event_types) = 0 OR 'balance.low' = ANY (e.event_types))
    RETURNING id
  )
  SELECT opened.locked, opened.existing, opened.known, opened.orderable, (SELECT count(*) FROM job)::int AS jobs,
         (SELECT count(*) FROM delivery)::int AS deliveries, placed.*
    FROM opened
    LEFT JOIN LATERAL (
      SELECT * FROM ins
      UNION ALL
      SELECT (order_record(o)).* FROM orders o WHERE opened.existing AND o.account_id = $1 AND o.idempotency_key = $2
    ) placed ON true`;
