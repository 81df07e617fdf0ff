-- The outbox write: the event, numbered from the account's event_sequences row, and one delivery
-- per subscribed endpoint (or to `endpoint_id` only, when given), in the caller's transaction.
-- The sequence row's lock makes a second transaction of the account wait for the first to commit,
-- so numbers commit in order and without gaps; it is not the accounts row, so it does not queue
-- behind wallet debits. The worker's dispatcher claims the delivery rows.
CREATE OR REPLACE FUNCTION record_webhook_event(account_id integer, public_id text, type text, data json, endpoint_id integer)
RETURNS TABLE ("sequence" integer, "deliveries" integer) LANGUAGE plpgsql AS $$
DECLARE
  v_sequence bigint;
  v_event_id bigint;
  v_deliveries integer;
BEGIN
  INSERT INTO event_sequences AS s (account_id, last_sequence) VALUES (record_webhook_event.account_id, 1)
  ON CONFLICT ON CONSTRAINT event_sequences_pkey DO UPDATE SET last_sequence = s.last_sequence + 1
  RETURNING s.last_sequence INTO v_sequence;

  INSERT INTO webhook_events (public_id, account_id, sequence, type, data)
  VALUES (record_webhook_event.public_id, record_webhook_event.account_id, v_sequence, record_webhook_event.type,
          record_webhook_event.data)
  RETURNING id INTO v_event_id;

  INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
  SELECT v_event_id, e.id, now() FROM webhook_endpoints e
   WHERE e.account_id = record_webhook_event.account_id AND e.disabled_at IS NULL
     AND (record_webhook_event.endpoint_id IS NULL OR e.id = record_webhook_event.endpoint_id)
     AND (record_webhook_event.endpoint_id IS NOT NULL OR cardinality(e.event_types) = 0
          OR record_webhook_event.type = ANY (e.event_types));
  GET DIAGNOSTICS v_deliveries = ROW_COUNT;

  RETURN QUERY SELECT v_sequence::integer, v_deliveries;
END;
$$;
