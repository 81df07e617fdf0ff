// The service's hot-path SQL, copied verbatim from lib/ for the floor server and the statement
// timing script: lib/auth/authenticate-api-key.ts (LOOKUP), lib/orders/place-order.ts
// (OPEN_PLACEMENT, INSERT_ORDER), lib/wallet/post-ledger-entry.ts (DEBIT, INSERT_LEDGER),
// lib/orders/place-order.ts recordEvent (INSERT_EVENT), lib/fulfilment/enqueue-fulfilment.ts
// (ADD_JOB), lib/catalog/list-products.ts (LIST_PRODUCTS). Keep them in step when those change;
// the short read statements are written inline where they are used.
export const LOOKUP = `
  SELECT k.id AS "keyId", k.account_id AS "accountId", k.require_ip_allowlist AS "requireIpAllowlist",
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

export const INSERT_ORDER = `
  INSERT INTO orders (id, public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint, product_id,
                      catalog_id, line_slug, line_kind, pack_name, unit_price_cents, quantity, amount_cents,
                      user_id, zone_id, server_id, status, supplier)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, 'processing', $19)
  RETURNING *`;

export const DEBIT = `
  UPDATE accounts
     SET balance_cents = balance_cents + $2,
         total_credited_cents = total_credited_cents + $3,
         updated_at = now()
   WHERE id = $1 AND balance_cents + $2 >= 0
   RETURNING balance_cents`;

export const INSERT_LEDGER = `
  INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason, audit_log_id)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
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
