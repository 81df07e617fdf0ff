// The floor's SQL. PLACE_ORDER is the floor's own order transaction: the same writes as the
// service's placement in one statement (see there). The rest is the service's hot-path SQL as
// lib/ sent it on 2026-11-22, for the stepwise floor (FLOOR_TRANSACTION=stepwise, the floor the
// earlier results were measured against) and the statement timing script:
// lib/auth/authenticate-api-key.ts (LOOKUP), lib/orders/place-order.ts (OPEN_PLACEMENT,
// INSERT_ORDER), lib/wallet/post-ledger-entry.ts (DEBIT, INSERT_LEDGER), lib/orders/place-order.ts
// recordEvent (INSERT_EVENT), lib/fulfilment/enqueue-fulfilment.ts (ADD_JOB),
// lib/catalog/list-products.ts (LIST_PRODUCTS). Keep LOOKUP, LIST_PRODUCTS and PLACE_ORDER's writes
// in step when lib/ changes; the short read statements are written inline where they are used.
export const LOOKUP = `
  SELECT k.id AS "keyId", k.account_id AS "accountId", k.require_ip_allowlist AS "requireIpAllowlist", k.created_at AS "keyCreatedAt",
         COALESCE((SELECT array_agg(e.cidr) FROM ip_allow_entries e WHERE e.api_key_id = k.id), '{}') AS cidrs,
         a.api_enabled AS "apiEnabled", a.api_disabled_by_admin AS "apiDisabledByAdmin", a.banned_at AS "bannedAt",
         a.restricted_until AS "restrictedUntil", a.created_at AS "accountCreatedAt",
         a.total_credited_cents AS "totalCreditedCents"
    FROM api_keys k JOIN accounts a ON a.id = k.account_id
   WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

export const OPEN_PLACEMENT = `
  SELECT pg_try_advisory_xact_lock(hashtextextended($1::int || ':' || $2::text, 0)) AS locked,
         (SELECT row_to_json(o) FROM orders o WHERE o.account_id = $1 AND o.idempotency_key = $2) AS existing,
         (SELECT json_build_object(
             'productId', p.id, 'catalogId', p.catalog_id, 'packName', p.pack_name, 'priceCents', p.price_cents,
             'productActive', p.active, 'supplierSku', p.supplier_sku, 'lineSlug', l.slug, 'lineCode', l.code,
             'lineKind', l.kind, 'requiredFields', l.required_fields, 'serverIdOptions', l.server_id_options,
             'lineAvailable', l.available, 'lineOrderable', l.orderable, 'supplier', l.supplier)
            FROM products p JOIN game_lines l ON l.id = p.line_id WHERE p.catalog_id = $3) AS entry,
         nextval(pg_get_serial_sequence('orders', 'id'))::int AS next_id`;

// With the key's order number (key_seq) taken in the same statement, as lib/orders/place-order.ts
// has done since 2026-11-24; DEBIT and INSERT_LEDGER likewise take the account's ledger number.
export const INSERT_ORDER = `
  WITH account AS (SELECT id FROM accounts WHERE id = $3 FOR KEY SHARE),
       numbered AS (UPDATE api_keys k SET order_count = k.order_count + 1 FROM account
                     WHERE k.id = $4 AND k.account_id = account.id RETURNING k.order_count)
  INSERT INTO orders (id, public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint, product_id,
                      catalog_id, line_slug, line_kind, pack_name, unit_price_cents, quantity, amount_cents,
                      user_id, zone_id, server_id, status, supplier, key_seq)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, 'processing', $19, numbered.order_count
    FROM numbered
  RETURNING *`;

export const DEBIT = `
  UPDATE accounts
     SET balance_cents = balance_cents + $2,
         total_credited_cents = total_credited_cents + $3,
         ledger_count = ledger_count + 1,
         updated_at = now()
   WHERE id = $1 AND balance_cents + $2 >= 0
   RETURNING balance_cents, ledger_count`;

export const INSERT_LEDGER = `
  INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason, audit_log_id, account_seq)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
  RETURNING id`;

export const INSERT_EVENT = `INSERT INTO order_events (order_id, from_status, to_status, reason) VALUES ($1, $2, $3, $4)`;

export const ADD_JOB = `SELECT graphile_worker.add_job($1, json_build_object('orderId', $2::int), job_key := $3, run_at := COALESCE($4::timestamptz, now()), max_attempts := 25)`;

export const LIST_PRODUCTS = `SELECT p.catalog_id, l.slug, l.game_name, l.product_name, p.pack_name, l.kind, p.price_cents, l.orderable,
                  CASE WHEN l.kind IN ('gamekey', 'giftcard')
                       THEN (SELECT count(*)::int FROM inventory_codes c WHERE c.product_id = p.id AND c.status = 'available')
                  END AS stock
             FROM products p JOIN game_lines l ON l.id = p.line_id
            WHERE p.active AND l.available
            ORDER BY l.sort_order, l.id, p.sort_order, p.id`;

/** Order ids reserved in blocks, so the public id (an HMAC of the id, computed in Node) is known
 * before the one placing statement; equivalent to the service's nextval per order. */
export const RESERVE_ORDER_IDS = `SELECT nextval(pg_get_serial_sequence('orders', 'id'))::int AS id FROM generate_series(1, $1::int)`;

/**
 * A whole placement in one statement (one round trip, no BEGIN/COMMIT: a single statement is its
 * own transaction), doing what lib/orders/place-order.ts does. Since 2026-11-25 the service's
 * placement is two round trips: its lookup (the first item below, without the lock; it validates
 * the body in Node after it), then one writing statement that is its own transaction with the rest
 * as CTEs (its PLACE_ORDER, which takes the lock, also reserves codes for key lines and takes the
 * account's key-share lock before the key's). What the floor saves beyond that is the lookup's
 * round trip and the validation in Node:
 * - the idempotency key's in-flight lock (held to the end of the statement's transaction), the
 *   existing order for the key, the catalog entry and its checks: if any fails, nothing is written
 *   and the caller reads which from the answer;
 * - the key's next order number (key_seq, with the key's counter) for the order row, and the
 *   account's next ledger number (account_seq) and date (never before its previous entry's:
 *   ledger_last_at) with the debit, as the service numbers and dates them;
 * - the conditional debit (balance never below zero), and the order row: processing when the debit
 *   took, otherwise stored cancelled with INSUFFICIENT BALANCE and nothing charged (as the service
 *   stores it, so a replay answers the same invoice);
 * - the ledger entry (only with a debit), the order event, the fulfilment job (keyed `place:<id>`
 *   through add_job's unsafe_dedupe path, as lib/fulfilment/enqueue-fulfilment.ts adds it, so its
 *   cost does not grow with the queue);
 * - balance.low when this debit crosses the account's threshold: the outbox event, its sequence
 *   number and one delivery per subscribed endpoint (lib/webhooks/record-balance-low.ts and
 *   record-webhook-event.ts; the deliveries are the dispatcher's queue, no job is added).
 * A concurrent duplicate that commits between this statement's snapshot and its insert fails the
 * insert with 23505, as in the service; the caller then runs it again and gets the existing order.
 *
 * $1 account id, $2 idempotency key, $3 pid, $4 order id, $5 public id without the line code
 * ("<id base 36>-<hash>"), $6 key id, $7 trxid, $8 request fingerprint, $9 userId, $10 actor,
 * $11 the balance.low event's public id (used only if the threshold is crossed).
 */
export const PLACE_ORDER = `
  WITH opened AS (
    SELECT pg_try_advisory_xact_lock(hashtextextended($1::int || ':' || $2::text, 0)) AS locked,
           (SELECT row_to_json(o) FROM orders o WHERE o.account_id = $1 AND o.idempotency_key = $2) AS existing,
           p.id IS NOT NULL AS known,
           COALESCE(p.active AND l.available AND l.orderable AND l.kind = 'topup' AND COALESCE(p.supplier_sku, '') <> '', false) AS orderable,
           p.id AS product_id, p.catalog_id, p.pack_name, p.price_cents, l.slug, l.code, l.kind, l.supplier
      FROM (SELECT 1) one
      LEFT JOIN (products p JOIN game_lines l ON l.id = p.line_id) ON p.catalog_id = $3
  ), accepted AS (
    SELECT * FROM opened WHERE locked AND existing IS NULL AND orderable
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
    RETURNING *
  ), ledger AS (
    INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason, audit_log_id, account_seq, created_at)
    SELECT $1, 'debit', -debit.price_cents, debit.balance_cents, ins.id, $10, 'order ' || ins.public_id, NULL, debit.ledger_count, debit.ledger_last_at
      FROM debit, ins
  ), event AS (
    INSERT INTO order_events (order_id, from_status, to_status, reason, data)
    SELECT ins.id, NULL, ins.status,
           CASE WHEN ins.order_created THEN 'placed: wallet debited, queued for fulfilment' ELSE 'INSUFFICIENT BALANCE: nothing charged' END, NULL
      FROM ins
  ), job AS (
    SELECT graphile_worker.add_job('fulfil_order', json_build_object('orderId', ins.id), max_attempts := 25,
                                   job_key := 'place:' || ins.id, job_key_mode := 'unsafe_dedupe')
      FROM ins WHERE ins.order_created
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
  SELECT opened.locked, opened.existing, opened.known, opened.orderable,
         (SELECT row_to_json(ins) FROM ins) AS inserted,
         (SELECT count(*) FROM job)::int AS jobs,
         (SELECT count(*) FROM delivery)::int AS deliveries
    FROM opened`;
