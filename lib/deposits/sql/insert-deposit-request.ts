// The unique amount: the requested cents plus the fewest extra cents (1 to 99) that no open request
// expects, preferring those no request has had for two days: a statement row of an amount another
// request had near the row's time (a day after it ended, and a date-only row stands for a whole day)
// is left to an admin (lib/deposits/import-bank-statement.ts). Two requests choosing the same amount
// at once meet at the partial unique index (deposit_requests_open_amount_key): the later one inserts
// nothing and its caller tries again, seeing the earlier one then.
import type { PrismaTx } from "../../db/prisma";

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
                                                      WHERE d.expires_at > now() - interval '2 days'), k
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
