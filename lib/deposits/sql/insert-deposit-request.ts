// The unique amount: the requested cents plus the fewest extra cents (1 to 99) that no open request
// expects, preferring those that have rested (AMOUNT_REST_SECONDS): the statement import leaves to an
// admin a row whose amount another request had near the row's time (lib/deposits/import-bank-statement.ts).
// Two requests choosing the same amount at once meet at the partial unique index
// (deposit_requests_open_amount_key): the later one inserts nothing and its caller tries again,
// seeing the earlier one then.
import type { PrismaTx } from "../../db/prisma";

const DAY_MS = 86_400_000;
/** A transfer may come this long after its request ended (a late payment, an expired request paid anyway). */
export const LATE_PAYMENT_MS = DAY_MS;
// How long an amount rests after its request ended: a late payment's time, and the whole day a
// date-only statement row stands for.
const AMOUNT_REST_SECONDS = (LATE_PAYMENT_MS + DAY_MS) / 1000;

/** The new request's id, or undefined when no amount was free (or a concurrent request took it). */
export async function insertDepositRequest(
  tx: PrismaTx,
  input: { reference: string; accountId: number; requestedCents: number; validityMinutes: number },
): Promise<number | undefined> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO deposit_requests (reference, account_id, requested_cents, amount_cents, expires_at)
    SELECT ${input.reference}, ${input.accountId}::int, ${input.requestedCents}::bigint,
           ${input.requestedCents}::bigint + k, now() + make_interval(mins => ${input.validityMinutes}::int)
      FROM generate_series(1, 99) AS k
     WHERE NOT EXISTS (SELECT 1 FROM deposit_requests d
                        WHERE d.status = 'pending' AND d.amount_cents = ${input.requestedCents}::bigint + k)
     ORDER BY ${input.requestedCents}::bigint + k IN (SELECT d.amount_cents FROM deposit_requests d
                                                      WHERE d.expires_at > now() - make_interval(secs => ${AMOUNT_REST_SECONDS})), k
     LIMIT 1
    ON CONFLICT (amount_cents) WHERE status = 'pending' DO NOTHING
    RETURNING id`;
  return rows[0]?.id;
}

/**
 * Serialises the requests of one amount until the transaction ends: requests of the same amount at
 * once would all pick the same first free cents and retry against each other. Requests of nearby
 * amounts (whose cents can overlap) still meet at the index, rarely, and try again.
 */
export async function lockRequestedAmount(tx: PrismaTx, requestedCents: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('deposit_requests.amount'), ${requestedCents}::int)`;
}
