// Each supplier account's state and its last hour, from the attempts recorded as order events
// (lib/fulfilment/sql/settle-order.ts): how many, how many delivered, latency, and what went wrong.
import { getPrisma } from "../../db/prisma";

export interface SupplierHealth {
  id: number;
  name: string;
  kind: string;
  pausedAt: Date | null;
  consecutiveFailures: number;
  circuitOpenUntil: Date | null;
  offers: number;
  /** The last hour's attempts. */
  attempts: number;
  delivered: number;
  /** delivered / attempts that settled (delivered or refused); null when none settled. */
  successRate: number | null;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  customerRefusals: number;
  supplierRefusals: number;
  unknown: number;
  pending: number;
  notReceived: number;
}

type HealthRow = Omit<SupplierHealth, "successRate">;

export async function readSupplierHealth(now: Date = new Date()): Promise<SupplierHealth[]> {
  const since = new Date(now.getTime() - 3_600_000);
  const rows = await getPrisma().$queryRaw<HealthRow[]>`
    WITH attempts AS (
      SELECT (e.data->>'supplierId')::int AS supplier_id, e.data->>'outcome' AS outcome, e.data->>'failure' AS failure,
             (e.data->>'latencyMs')::float8 AS latency_ms
        FROM order_events e
       WHERE e.data ? 'supplierId' AND e.created_at >= ${since}
    ), summary AS (
      SELECT supplier_id, count(*)::int AS attempts,
             count(*) FILTER (WHERE outcome = 'success')::int AS delivered,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
             percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95,
             count(*) FILTER (WHERE outcome = 'failed' AND failure = 'customer')::int AS customer_refusals,
             count(*) FILTER (WHERE outcome = 'failed' AND failure = 'supplier')::int AS supplier_refusals,
             count(*) FILTER (WHERE outcome = 'unknown')::int AS unknown,
             count(*) FILTER (WHERE outcome = 'pending')::int AS pending,
             count(*) FILTER (WHERE outcome = 'not_found')::int AS not_received
        FROM attempts GROUP BY supplier_id
    )
    SELECT s.id, s.name, s.kind, s.paused_at AS "pausedAt", s.consecutive_failures AS "consecutiveFailures",
           s.circuit_open_until AS "circuitOpenUntil",
           (SELECT count(*)::int FROM supplier_offers f WHERE f.supplier_id = s.id) AS offers,
           COALESCE(m.attempts, 0) AS attempts, COALESCE(m.delivered, 0) AS delivered,
           round(m.p50)::int AS "p50LatencyMs", round(m.p95)::int AS "p95LatencyMs",
           COALESCE(m.customer_refusals, 0) AS "customerRefusals", COALESCE(m.supplier_refusals, 0) AS "supplierRefusals",
           COALESCE(m.unknown, 0) AS unknown, COALESCE(m.pending, 0) AS pending,
           COALESCE(m.not_received, 0) AS "notReceived"
      FROM suppliers s LEFT JOIN summary m ON m.supplier_id = s.id
     ORDER BY s.name`;
  return rows.map((row) => {
    const settled = row.delivered + row.customerRefusals + row.supplierRefusals;
    return { ...row, successRate: settled === 0 ? null : row.delivered / settled };
  });
}
