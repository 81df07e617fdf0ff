// Which supplier an order goes to: its pack's offers by priority, skipping the suppliers it has been
// with, paused ones and ones whose circuit is open (lib/suppliers/sql/record-supplier-result.ts), and
// in production sandbox-kind ones (lib/config/sandbox-serves-live-orders.ts).
// A circuit whose cool-down has passed lets one order through as a probe: the first order to claim
// it pushes the cool-down on, so the others keep skipping it until the probe has answered.
//
// The move is one guarded UPDATE from the supplier the order was with, so two runners of one order
// never send it to two suppliers: the one that loses the race changes nothing and stops.
import { getPool } from "../../db/pool";
import { sql } from "../../db/run-sql";
import type { SupplierAccount } from "../../suppliers/supplier-account";
import { CIRCUIT_COOL_DOWN } from "../../suppliers/sql/record-supplier-result";

export interface SupplierRoute extends SupplierAccount {
  /** Null when the offer was removed while the order was with the supplier (it is still asked about it). */
  sku: string | null;
  consecutiveFailures: number;
}

export type RouteResult =
  | { status: "routed"; route: SupplierRoute }
  /** No offer left that is not tried, paused or open: the order cannot be fulfilled now. */
  | { status: "none_left" }
  /** Another runner moved the order meanwhile: it owns it now. */
  | { status: "moved_meanwhile" };

type OfferRow = SupplierRoute & { dueProbe: boolean };

/** Moves the order from `from` (null: not routed yet) to the next supplier it may go to. */
export async function routeOrder(order: {
  id: number;
  productId: number | null;
  from: number | null;
  tried: number[];
  /** sandboxServesLiveOrders(): false in production, where only a real kind's supplier is chosen. */
  sandboxAllowed: boolean;
}): Promise<RouteResult> {
  const skipped = [...order.tried];
  for (;;) {
    const { rows } = await getPool().query<OfferRow>(
      sql`SELECT s.id, s.name, s.kind, s.settings, s.updated_at AS "updatedAt", f.sku,
                 s.consecutive_failures AS "consecutiveFailures", s.circuit_open_until IS NOT NULL AS "dueProbe"
            FROM supplier_offers f JOIN suppliers s ON s.id = f.supplier_id JOIN supplier_kinds k ON k.kind = s.kind
           WHERE f.product_id = ${order.productId} AND NOT s.id = ANY(${skipped}::int[]) AND s.paused_at IS NULL
             AND (k.real OR ${order.sandboxAllowed}::boolean)
             AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= now())
           ORDER BY f.priority, f.id
           LIMIT 1`,
    );
    const offer = rows[0];
    if (!offer) return { status: "none_left" };
    if (offer.dueProbe && !(await claimProbe(offer.id))) {
      skipped.push(offer.id);
      continue;
    }
    const { dueProbe: _dueProbe, ...route } = offer;
    const moved = await getPool().query(
      sql`UPDATE orders SET supplier_id = ${route.id}, supplier = ${route.name}, attempts = 1,
                            tried_supplier_ids = tried_supplier_ids || ${route.id}::int, updated_at = now()
           WHERE id = ${order.id} AND supplier_id IS NOT DISTINCT FROM ${order.from}::int
             AND status IN ('pending', 'processing') AND NOT needs_admin`,
    );
    return moved.rowCount ? { status: "routed", route } : { status: "moved_meanwhile" };
  }
}

/** The one probe of a circuit whose cool-down has passed; false when another order took it. */
async function claimProbe(supplierId: number): Promise<boolean> {
  const claimed = await getPool().query(
    sql`UPDATE suppliers SET circuit_open_until = now() + ${CIRCUIT_COOL_DOWN}::interval
         WHERE id = ${supplierId} AND circuit_open_until <= now()`,
  );
  return (claimed.rowCount ?? 0) > 0;
}
