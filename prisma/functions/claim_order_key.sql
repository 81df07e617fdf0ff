-- The idempotency key's gate of POST /orders (place_order, and the replay lookup while a switch
-- stops new orders): takes the key's in-flight lock to the end of the transaction, and says why a
-- placement must write nothing: 'in_flight' while another transaction holds the lock (the original
-- request has not answered yet), 'placed_meanwhile' once the key has an order. Null: it goes on.
CREATE OR REPLACE FUNCTION claim_order_key(account_id integer, idempotency_key text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(
           hashtextextended(claim_order_key.account_id || ':' || claim_order_key.idempotency_key, 0)) THEN
    RETURN 'in_flight';
  END IF;
  IF EXISTS (SELECT 1 FROM orders o
              WHERE o.account_id = claim_order_key.account_id
                AND o.idempotency_key = claim_order_key.idempotency_key) THEN
    RETURN 'placed_meanwhile';
  END IF;
  RETURN NULL;
END;
$$;
