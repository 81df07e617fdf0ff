// balance.low fires once per crossing: when a change takes the balance from at or above the
// holder's threshold to below it (not on every debit while it stays below). It rides in the
// statement of the money move that crossed (lib/wallet/post-ledger-entry.ts), so it costs nothing
// unless a threshold is crossed, and the move's statement knows the balance it left without a
// round trip back to Node.
import { webhookEventCtes } from "./record-webhook-event";

/**
 * CTEs after the money move's `moveCte` (one row: balance_cents after the move,
 * low_balance_threshold_cents) that record balance.low when the move of `amountCents` (an SQL
 * expression, signed) crossed the threshold: balance_low, then webhookEventCtes' three.
 * `eventId` is the event's public id, used only when it fires.
 *
 * The data is { balanceUsd, currency, thresholdUsd } in that key order, the dollars as
 * centsToUsd gives them (cents / 100 as a double; the column is json and readers parse it).
 */
export function balanceLowCtes(
  moveCte: string,
  p: { accountId: string; amountCents: string; eventId: string },
): string {
  return `balance_low AS (
    SELECT m.balance_cents AS after_cents, m.low_balance_threshold_cents AS threshold_cents
      FROM ${moveCte} m
     WHERE m.low_balance_threshold_cents IS NOT NULL
       AND m.balance_cents - ${p.amountCents} >= m.low_balance_threshold_cents
       AND m.balance_cents < m.low_balance_threshold_cents
  ), ${webhookEventCtes({
    accountId: p.accountId,
    publicId: p.eventId,
    type: "'balance.low'",
    data: `json_build_object('balanceUsd', balance_low.after_cents::float8 / 100, 'currency', 'USD', 'thresholdUsd', balance_low.threshold_cents::float8 / 100)`,
    endpointId: "NULL::int",
    source: "balance_low",
  })}`;
}
