// The circuit breaker of a supplier account, kept in its row so every worker sees it: supplier-side
// failures and unknown outcomes in a row open the circuit for a cool-down (routing skips the
// supplier, so orders do not wait for its timeouts), then one order probes it (route-order.ts); a
// success closes it. A success on a closed circuit with no failures writes nothing, so the orders
// of a healthy supplier never queue on its row.
import { getPool } from "../../db/pool";
import { sql } from "../../db/run-sql";

/** Failures in a row that open the circuit. */
export const CIRCUIT_FAILURE_THRESHOLD = 5;
/** How long an open circuit is skipped before a probe (a PostgreSQL interval). */
export const CIRCUIT_COOL_DOWN = "30 seconds";

export type CircuitChange = "opened" | "closed" | undefined;

/** A supplier-side failure or an unknown outcome; "opened" when this one opened the circuit. */
export async function recordSupplierFailure(supplierId: number): Promise<CircuitChange> {
  const { rows } = await getPool().query<{ opened: boolean }>(
    sql`WITH before AS (SELECT circuit_open_until FROM suppliers WHERE id = ${supplierId} FOR UPDATE)
        UPDATE suppliers s
           SET consecutive_failures = s.consecutive_failures + 1,
               circuit_open_until = CASE
                 WHEN s.consecutive_failures + 1 >= ${CIRCUIT_FAILURE_THRESHOLD}
                  AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= now())
                 THEN now() + ${CIRCUIT_COOL_DOWN}::interval ELSE s.circuit_open_until END
          FROM before
         WHERE s.id = ${supplierId}
        RETURNING before.circuit_open_until IS NULL AND s.circuit_open_until IS NOT NULL AS opened`,
  );
  return rows[0]?.opened ? "opened" : undefined;
}

/** A delivered top-up or a definite answer; "closed" when it closed an open circuit. */
export async function recordSupplierSuccess(supplierId: number): Promise<CircuitChange> {
  const { rows } = await getPool().query<{ closed: boolean }>(
    sql`WITH before AS (SELECT circuit_open_until FROM suppliers WHERE id = ${supplierId} FOR UPDATE)
        UPDATE suppliers s SET consecutive_failures = 0, circuit_open_until = NULL
          FROM before
         WHERE s.id = ${supplierId} AND (s.consecutive_failures > 0 OR s.circuit_open_until IS NOT NULL)
        RETURNING before.circuit_open_until IS NOT NULL AS closed`,
  );
  return rows[0]?.closed ? "closed" : undefined;
}
