-- An order as the API, the worker and the webhooks read it: camelCase fields, cents as bigint.
-- Statements select `(order_record(o)).*`; the function is inlined, so it costs nothing per row.
CREATE OR REPLACE FUNCTION order_record(o orders) RETURNS order_record LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(o.id, o.public_id, o.account_id, o.api_key_id, o.trxid, o.idempotency_key, o.request_fingerprint,
             o.catalog_id, o.line_slug, o.line_kind, o.pack_name, o.unit_price_cents, o.quantity, o.amount_cents,
             o.user_id, o.zone_id, o.server_id, o.sent_user_id, o.sent_zone_id, o.sent_server_id,
             o.order_created, o.status, o.error, o.refunded, o.needs_admin, o.supplier, o.created_at,
             o.finished_at, o.livemode, o.refund_requested, o.metadata)::order_record
$$;
