-- POST /orders' write (lib/orders/sql/place-order.ts says what it does). The account decides its
-- mode, and with it the order's supplier and its use of stock; the pack, its line and its price
-- come from catalog_entry() at the holder's price tier: nothing of that is taken from the caller.
-- The caller's guards are checked against them before anything is written: its maxPrice, and its
-- key's daily spending limit, counted under the key's row lock so parallel orders cannot pass it.
CREATE OR REPLACE FUNCTION place_order(
  order_id integer, public_id text, account_id integer, api_key_id integer,
  trxid text, idempotency_key text, request_fingerprint text, catalog_id text, quantity integer,
  user_id text, zone_id text, server_id text, sent_user_id text, sent_zone_id text, sent_server_id text,
  low_event_id text, max_price_cents bigint, metadata jsonb
) RETURNS TABLE ("outcome" text, "deliveries" integer, "placed" order_record) LANGUAGE plpgsql AS $$
DECLARE
  v_account record;
  v_order record;
  v_key record;
  v_placed order_record;
  v_codes integer[];
  v_charged boolean;
  v_deliveries integer;
  v_today date := (now() AT TIME ZONE 'UTC')::date;
BEGIN
  outcome := claim_order_key(place_order.account_id, place_order.idempotency_key);
  IF outcome IS NOT NULL THEN
    RETURN QUERY SELECT outcome, 0, NULL::order_record;
    RETURN;
  END IF;
  SELECT a.live_account_id IS NULL AS livemode, h.id AS holder, h.price_tier_id INTO v_account
    FROM accounts a JOIN accounts h ON h.id = coalesce(a.live_account_id, a.id)
   WHERE a.id = place_order.account_id FOR KEY SHARE OF a;
  -- What the order is: the pack at the holder's tier (read apart from the row lock, under which the
  -- whole entry would be computed) and, by the account's mode, its supplier: a test top-up goes to the sandbox.
  SELECT e."productId", e."catalogId", e."lineSlug", e."lineKind", e."packName", e."priceCents",
         e."priceCents" * place_order.quantity AS amount,
         CASE WHEN NOT v_account.livemode AND e."lineKind" = 'topup' THEN 'sandbox' END AS supplier
    INTO v_order FROM catalog_entry(place_order.catalog_id, v_account.price_tier_id) e;
  IF NOT FOUND THEN -- validated by the caller a moment ago, the pack is gone since
    PERFORM raise_api_error('UNKNOWN_PID');
  END IF;
  IF v_order.amount > place_order.max_price_cents THEN
    PERFORM raise_api_error('PRICE_ABOVE_MAX', json_build_object('priceUsd', round(v_order."priceCents" / 100.0, 2),
                                                                 'amountUsd', round(v_order.amount / 100.0, 2))::jsonb);
  END IF;
  -- The key's day of spending counts this order's amount; taken back below if the wallet refuses it.
  UPDATE api_keys k SET order_count = k.order_count + 1, spent_day = v_today,
         spent_today_cents = CASE WHEN k.spent_day = v_today THEN k.spent_today_cents ELSE 0 END + v_order.amount
   WHERE k.id = place_order.api_key_id AND k.account_id = v_account.holder
  RETURNING k.order_count AS seq, k.daily_limit_cents AS limit_cents, k.spent_today_cents AS spent INTO v_key;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'api key % of account % not found while placing an order', api_key_id, account_id;
  END IF;
  IF v_key.spent > v_key.limit_cents THEN
    PERFORM raise_api_error('KEY_SPENDING_LIMIT', json_build_object(
      'limitUsd', round(v_key.limit_cents / 100.0, 2), 'spentTodayUsd', round((v_key.spent - v_order.amount) / 100.0, 2),
      'resetsAt', to_char(v_today + 1, 'YYYY-MM-DD"T"00:00:00.000"Z"'))::jsonb);
  END IF;
  -- The codes a live key or gift card takes, before the wallet is touched (a test one takes none).
  -- Locked only after the key's row: placements of one key queue there, so none holds codes while it
  -- waits for another that would then skip them and answer INSUFFICIENT_STOCK.
  IF v_account.livemode AND v_order."lineKind" <> 'topup' THEN
    v_codes := lock_free_codes(v_order."productId", place_order.quantity);
  END IF;

  -- Stored as charged first: the ledger entry refers to the order. Refused for balance, it is
  -- then cancelled within the same transaction.
  INSERT INTO orders AS o (id, public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint,
                           product_id, catalog_id, line_slug, line_kind, pack_name, unit_price_cents, quantity,
                           amount_cents, user_id, zone_id, server_id, sent_user_id, sent_zone_id, sent_server_id,
                           status, supplier, key_seq, order_created, livemode, metadata)
  VALUES (place_order.order_id, place_order.public_id, place_order.account_id, place_order.api_key_id,
          place_order.trxid, place_order.idempotency_key, place_order.request_fingerprint, v_order."productId",
          v_order."catalogId", v_order."lineSlug", v_order."lineKind", v_order."packName",
          v_order."priceCents", place_order.quantity, v_order.amount, place_order.user_id, place_order.zone_id,
          place_order.server_id, place_order.sent_user_id, place_order.sent_zone_id, place_order.sent_server_id,
          'processing', v_order.supplier, v_key.seq, true, v_account.livemode, place_order.metadata)
  RETURNING (order_record(o)).* INTO v_placed;

  SELECT count(*) > 0, coalesce(max(m.deliveries), 0) INTO v_charged, v_deliveries
    FROM post_ledger_entry(place_order.account_id, 'debit', -v_order.amount, place_order.order_id,
                           'api-key:' || place_order.api_key_id, 'order ' || place_order.public_id, NULL,
                           low_event_id) m;
  IF NOT v_charged THEN
    UPDATE orders o SET status = 'cancelled', order_created = false, error = 'INSUFFICIENT BALANCE', finished_at = now()
     WHERE o.id = place_order.order_id
    RETURNING (order_record(o)).* INTO v_placed;
    UPDATE api_keys k SET spent_today_cents = k.spent_today_cents - v_order.amount WHERE k.id = place_order.api_key_id;
  ELSIF v_codes IS NOT NULL THEN
    UPDATE inventory_codes c SET status = 'reserved', order_id = place_order.order_id, reserved_at = now()
     WHERE c.id = ANY (v_codes);
  END IF;

  INSERT INTO order_events (order_id, from_status, to_status, reason)
  VALUES (place_order.order_id, NULL, v_placed.status,
          CASE WHEN v_charged THEN 'placed: wallet debited, queued for fulfilment'
               ELSE 'INSUFFICIENT BALANCE: nothing charged' END);

  IF v_charged AND (graphile_worker.add_job('fulfil_order', json_build_object('orderId', place_order.order_id),
                                            max_attempts := 25, job_key := 'place:' || place_order.order_id,
                                            job_key_mode := 'unsafe_dedupe')).revision <> 0 THEN
    PERFORM raise_api_error('FULFILMENT_JOB_TAKEN');
  END IF;

  RETURN QUERY SELECT 'placed', v_deliveries, v_placed;
END;
$$;
