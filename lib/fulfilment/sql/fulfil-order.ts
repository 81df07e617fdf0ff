// Takes one order toward a terminal state. Safe to run twice, concurrently, or after a crash at
// any line: every change is a guarded transition (settle-order.ts), and the attempt is counted
// before the supplier is called, so a retry asks the supplier what happened instead of guessing.
import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import { getSupplier } from "../../suppliers/get-supplier";
import type { Supplier, TopupStatus } from "../../suppliers/types";
import type { Product } from "../../generated/prisma/client";
import type { OrderRecord } from "../../orders/order-record";
import { enqueueFulfilment } from "./enqueue-fulfilment";
import { cancelAndRefundOrder, completeOrder, flagOrderForAdmin, moveOrder } from "./settle-order";
import { env } from "../../config/env";

export interface FulfilmentTiming {
  /** First wait before asking the supplier again; doubles per attempt. */
  pollBaseMs: number;
  pollMaxMs: number;
  /** After this long without a settled outcome, the order is flagged for an admin. */
  deadlineMs: number;
}

/** SUPPLIER_POLL_MS, SUPPLIER_POLL_MAX_MS and SUPPLIER_DEADLINE_MS. */
export function fulfilmentTiming(): FulfilmentTiming {
  return env().fulfilment;
}

type FulfilmentRow = OrderRecord & Pick<Product, "supplierSku"> & { countedAttempts: number | null };

export async function fulfilOrder(
  orderId: number,
  timing: FulfilmentTiming = fulfilmentTiming(),
  supplierFor: (name: string) => Supplier = getSupplier,
): Promise<void> {
  const pool = getPool();
  // One round trip: the order as it was, and, for a top-up still to fulfil, its attempt counted
  // (durably, before the supplier is called). Key and gift-card lines have no supplier attempt.
  const { rows } = await pool.query<FulfilmentRow>(
    prepared(
      "fulfil-read-and-count",
      sql`WITH counted AS (
            UPDATE orders SET attempts = attempts + 1, updated_at = now()
             WHERE id = ${orderId} AND line_kind = 'topup' AND status IN ('pending', 'processing') AND NOT needs_admin
            RETURNING attempts
          )
          SELECT (order_record(o)).*, p.supplier_sku AS "supplierSku", (SELECT attempts FROM counted) AS "countedAttempts"
            FROM orders o LEFT JOIN products p ON p.id = o.product_id WHERE o.id = ${orderId}`,
    ),
  );
  const order = rows[0];
  if (!order || order.needsAdmin || (order.status !== "pending" && order.status !== "processing")) return;

  if (order.lineKind !== "topup") {
    await completeOrder(orderId, "codes delivered");
    return;
  }
  // Settled or flagged between the snapshot and the count: nothing to do.
  if (order.countedAttempts === null) return;

  if (order.status === "pending") await moveOrder(orderId, "processing", "attempt started");
  const attempts = order.countedAttempts;
  const supplier = supplierFor(order.supplier ?? "sandbox");
  const request = {
    reference: order.publicId,
    sku: order.supplierSku ?? order.catalogId,
    game: order.lineSlug,
    userId: order.userId ?? undefined,
    zoneId: order.zoneId ?? undefined,
    serverId: order.serverId ?? undefined,
  };

  let outcome: TopupStatus =
    attempts > 1 ? await supplier.checkTopup(order.publicId) : await supplier.placeTopup(request);
  // The supplier never received it (the earlier attempt died before sending): place it now.
  if (outcome.status === "not_found") outcome = await supplier.placeTopup(request);

  const supplierRef = ("supplierRef" in outcome && outcome.supplierRef) || undefined;
  switch (outcome.status) {
    // A settled outcome's reference is written by the settlement itself: one commit, not two.
    case "success":
      await completeOrder(orderId, "supplier confirmed delivery", { supplierRef });
      return;
    case "failed":
      await cancelAndRefundOrder(orderId, outcome.reason, { supplierRef });
      return;
    case "pending":
    case "unknown": {
      if (supplierRef) await pool.query(sql`UPDATE orders SET supplier_ref = ${supplierRef} WHERE id = ${orderId}`);
      if (Date.now() - order.createdAt.getTime() >= timing.deadlineMs) {
        await flagOrderForAdmin(orderId, `supplier outcome not settled after ${attempts} attempts`);
        return;
      }
      if (outcome.status === "unknown") {
        await moveOrder(orderId, "pending", `supplier outcome unknown (${outcome.reason}); asking again`);
      }
      const delay = Math.min(timing.pollMaxMs, timing.pollBaseMs * 2 ** Math.min(attempts - 1, 16));
      await enqueueFulfilment(pool, orderId, new Date(Date.now() + delay));
      return;
    }
    default:
      outcome satisfies { status: "not_found" };
      await enqueueFulfilment(pool, orderId, new Date(Date.now() + timing.pollBaseMs));
  }
}
