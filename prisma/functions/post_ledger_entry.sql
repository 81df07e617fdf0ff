-- The only change of a wallet balance: one conditional UPDATE (never below zero) and its ledger row,
-- in the caller's transaction, so the balance always equals the sum of the ledger. No row when the
-- balance would go below zero, and then nothing is written.
--
-- The move takes the account's next ledger number (account_seq, 1..n without gaps: the account's
-- row stays locked to the end of the transaction) and dates the entry no earlier than the
-- account's previous one (ledger_last_at), so the balance at a time is the balance_after of the last
-- entry dated before it (GET /ledger?format=csv). A move that takes the balance from at or above the
-- holder's threshold to below it records balance.low (`low_event_id` is its public id).
CREATE OR REPLACE FUNCTION post_ledger_entry(
  account_id integer,
  kind "LedgerKind",
  amount_cents bigint,
  order_id integer,
  actor text,
  reason text,
  audit_log_id integer,
  low_event_id text
) RETURNS TABLE ("entryId" integer, "balanceAfterCents" bigint, "deliveries" integer) LANGUAGE plpgsql AS $$
DECLARE
  v_balance bigint;
  v_threshold bigint;
  v_seq integer;
  v_at timestamptz;
  v_entry_id integer;
  v_deliveries integer := 0;
BEGIN
  UPDATE accounts a
     SET balance_cents = a.balance_cents + post_ledger_entry.amount_cents,
         total_credited_cents = a.total_credited_cents
           + CASE WHEN post_ledger_entry.kind = 'credit' THEN post_ledger_entry.amount_cents ELSE 0 END,
         ledger_count = a.ledger_count + 1,
         ledger_last_at = greatest(now(), a.ledger_last_at),
         updated_at = now()
   WHERE a.id = post_ledger_entry.account_id AND a.balance_cents + post_ledger_entry.amount_cents >= 0
  RETURNING a.balance_cents, a.low_balance_threshold_cents, a.ledger_count, a.ledger_last_at
       INTO v_balance, v_threshold, v_seq, v_at;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason,
                              audit_log_id, account_seq, created_at)
  VALUES (post_ledger_entry.account_id, post_ledger_entry.kind, post_ledger_entry.amount_cents, v_balance,
          post_ledger_entry.order_id, post_ledger_entry.actor, post_ledger_entry.reason,
          post_ledger_entry.audit_log_id, v_seq, v_at)
  RETURNING id INTO v_entry_id;

  -- Once per crossing, not on every debit while the balance stays below. The dollars are
  -- cents / 100 as a double, as centsToUsd gives them.
  IF v_threshold IS NOT NULL AND v_balance - post_ledger_entry.amount_cents >= v_threshold
     AND v_balance < v_threshold THEN
    SELECT r.deliveries INTO v_deliveries
      FROM record_webhook_event(post_ledger_entry.account_id, low_event_id, 'balance.low',
                                json_build_object('balanceUsd', v_balance::float8 / 100, 'currency', 'USD',
                                                  'thresholdUsd', v_threshold::float8 / 100),
                                NULL) r;
  END IF;

  RETURN QUERY SELECT v_entry_id, v_balance, v_deliveries;
END;
$$;
