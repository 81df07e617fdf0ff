// The terminal transitions of an order, used by the worker and by an admin settling a flagged
// order. Each runs in one transaction that first moves the order out of a non-terminal status with
// a guarded UPDATE: whoever loses a race (a second worker, a redelivered job, an admin clicking
// twice) changes nothing. The refund is a ledger entry linked to the order, and the (order, kind)
// unique constraint makes a second one impossible even if this guard were bypassed.
import type pg from "pg";
import { afterCommit, getPool, withTransaction } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import { postLedgerEntry } from "../../wallet/sql/post-ledger-entry";
import { recordAuditEntry, type AuditEntry } from "../../audit/sql/record-audit-entry";
import type { OrderRecord } from "../../orders/order-record";
import { recordOrderEvent } from "../../orders/sql/record-order-event";
import type { OrderStatus } from "../../generated/prisma/enums";
import { recordOrderWebhookEvent } from "../../webhooks/record-order-webhook-event";
import { recordOrderSettled } from "../../observability/metrics";

/** An admin's audit entry, built from the order as settled and committed with the settlement. */
type SettlementAudit = (order: OrderRecord) => AuditEntry;

export const ORDER_FINISHED_CHANNEL = "order_finished";
/**
 * GET /orders/:id?wait holds a shared advisory lock (this namespace, the order id) while it waits
 * (wait-for-order.ts). A settlement notifies only when its try for the exclusive lock fails, that
 * is when someone waits: a NOTIFY holds a database-wide lock through its commit, so notifying every
 * settlement made all of them commit one after another. No wake-up is lost: a waiter that comes
 * after the try blocks on the lock until the settlement has committed, and then reads it.
 */
export const ORDER_WAITER_LOCK_NAMESPACE = 72_707_003;

export type SettleResult = { settled: true; order: OrderRecord } | { settled: false };

/** One call to a supplier about an order, recorded as an order event (the dashboard's supplier health reads them). */
export interface SupplierAttempt {
  supplierId: number;
  supplier: string;
  outcome: "success" | "failed" | "pending" | "unknown" | "not_found";
  /** Whose side refused a failed top-up. */
  failure?: "customer" | "supplier";
  reason?: string;
  latencyMs: number;
}

/**
 * Who settles (the worker by default; an admin's settlement carries its audit entry), the
 * supplier's reference, if it gave one, and the supplier attempt that settled it.
 */
export interface SettleOptions {
  actor?: string;
  audit?: SettlementAudit;
  supplierRef?: string;
  attempt?: SupplierAttempt;
  /**
   * Only while no supplier has been asked: a key or gift-card order not yet delivered, a top-up
   * the worker has not claimed (no attempt counted). The holder's cancel; the worker's claim
   * counts its attempt under the same row lock, so one of the two wins.
   */
  unsentOnly?: boolean;
  /** Added to the webhook event's data (who cancelled). */
  eventData?: Record<string, unknown>;
}

async function finish(
  orderId: number,
  to: "completed" | "cancelled",
  reason: string,
  { actor = "worker", audit, supplierRef, attempt, unsentOnly = false, eventData }: SettleOptions,
  /** The settlement's own writes; returns the order again when they changed it. */
  work: (
    client: pg.PoolClient,
    order: OrderRecord,
    settledBy: { actor: string; auditLogId: number | undefined },
  ) => Promise<OrderRecord | void>,
  error?: string,
): Promise<SettleResult> {
  return withTransaction(async (client) => {
    // The guarded move out of a non-terminal status (the row lock taken first, so a concurrent
    // settlement waits and then finds the order settled), its order event, and the notification
    // that wakes GET /orders/:id?wait when a request waits for it. The supplier's reference for a
    // settled outcome is written here too, and the cost: the offer's of the supplier that
    // delivered, at this moment, or nothing for a cancelled order.
    const { rows } = await client.query<OrderRecord & { fromStatus: OrderStatus }>(
      prepared(
        "settle-order",
        sql`WITH before AS (SELECT status, line_kind, attempts FROM orders WHERE id = ${orderId} FOR UPDATE),
            settled AS (
              UPDATE orders o
                 SET status = ${to}, error = ${error ?? null}, needs_admin = false, finished_at = now(), updated_at = now(),
                     supplier_ref = COALESCE(${supplierRef ?? null}, o.supplier_ref),
                     cost_cents = CASE WHEN ${to}::text = 'completed'
                                       THEN COALESCE((SELECT f.cost_cents FROM supplier_offers f
                                                       WHERE f.product_id = o.product_id AND f.supplier_id = o.supplier_id), 0)
                                       ELSE 0 END
                FROM before
               WHERE o.id = ${orderId} AND before.status IN ('pending', 'processing')
                 AND (NOT ${unsentOnly}::boolean OR before.line_kind <> 'topup' OR before.attempts = 0)
              RETURNING before.status AS "fromStatus", (order_record(o)).*
            ), event AS (
              INSERT INTO order_events (order_id, from_status, to_status, reason, data)
              SELECT ${orderId}, settled."fromStatus", ${to}, ${reason}, ${JSON.stringify({ actor, ...attempt })}::jsonb
                FROM settled
            ), notified AS (
              SELECT pg_notify(${ORDER_FINISHED_CHANNEL}, ${orderId}::text) FROM settled
               WHERE NOT pg_try_advisory_xact_lock(${ORDER_WAITER_LOCK_NAMESPACE}, ${orderId})
            )
            SELECT settled.* FROM settled, (SELECT count(*) FROM notified) n`,
      ),
    );
    const [row] = rows;
    if (!row) return { settled: false };
    const { fromStatus: _fromStatus, ...settled } = row;
    afterCommit(client, () => recordOrderSettled(to, settled));
    const auditLogId = audit ? await recordAuditEntry(audit(settled), client) : undefined;
    const final = (await work(client, settled, { actor, auditLogId })) ?? settled;
    await recordOrderWebhookEvent(client, to === "completed" ? "order.completed" : "order.cancelled", final, eventData);
    return { settled: true, order: final };
  });
}

/** Delivered: reserved codes become delivered. */
export function completeOrder(orderId: number, reason: string, options: SettleOptions = {}): Promise<SettleResult> {
  return finish(orderId, "completed", reason, options, async (client, order) => {
    // A top-up has no codes.
    if (order.lineKind === "topup") return;
    await client.query(
      sql`UPDATE inventory_codes SET status = 'delivered', delivered_at = now()
           WHERE order_id = ${orderId} AND status = 'reserved'`,
    );
  });
}

/** Not delivered: the charge is refunded once and reserved codes go back to stock. */
export function cancelAndRefundOrder(
  orderId: number,
  error: string,
  options: SettleOptions = {},
): Promise<SettleResult> {
  return finish(
    orderId,
    "cancelled",
    `${error}: refunded`,
    options,
    async (client, order, { actor, auditLogId }) => {
      let refunded: OrderRecord | undefined;
      if (order.orderCreated && order.amountCents > 0) {
        await postLedgerEntry(client, {
          accountId: order.accountId,
          kind: "refund",
          amountCents: order.amountCents,
          orderId,
          actor,
          reason: error,
          auditLogId,
        });
        refunded = (
          await client.query<OrderRecord>(
            sql`UPDATE orders o SET refunded = true WHERE id = ${orderId} RETURNING (order_record(o)).*`,
          )
        ).rows[0];
      }
      if (order.lineKind !== "topup") {
        await client.query(
          sql`UPDATE inventory_codes SET status = 'available', order_id = NULL, reserved_at = NULL
               WHERE order_id = ${orderId} AND status = 'reserved'`,
        );
      }
      return refunded;
    },
    error,
  );
}

/** An outcome nobody could settle in time: an admin decides (complete, or cancel and refund). */
export async function flagOrderForAdmin(orderId: number, reason: string): Promise<boolean> {
  return withTransaction(async (client) => {
    const { rows } = await client.query<OrderRecord>(
      sql`UPDATE orders o SET needs_admin = true, updated_at = now()
           WHERE id = ${orderId} AND status IN ('pending', 'processing') AND NOT needs_admin
          RETURNING (order_record(o)).*`,
    );
    const [flagged] = rows;
    if (!flagged) return false;
    await recordOrderEvent(client, orderId, flagged.status, flagged.status, `flagged for an admin: ${reason}`);
    await recordOrderWebhookEvent(client, "order.flagged", flagged);
    return true;
  });
}

/** A supplier attempt that settled nothing: an event at the order's status as it is. */
export async function recordSupplierAttempt(orderId: number, attempt: SupplierAttempt): Promise<void> {
  const reason = `${attempt.supplier}: ${attempt.outcome}${attempt.reason ? ` (${attempt.reason})` : ""}`;
  await getPool().query(
    sql`INSERT INTO order_events (order_id, from_status, to_status, reason, data)
        SELECT id, status, status, ${reason}, ${JSON.stringify(attempt)}::jsonb FROM orders WHERE id = ${orderId}`,
  );
}

/** A non-terminal status change with its event (processing <-> pending). */
export async function moveOrder(orderId: number, to: "pending" | "processing", reason: string): Promise<void> {
  await withTransaction(async (client) => {
    const { rows } = await client.query<OrderRecord & { fromStatus: OrderStatus }>(
      sql`UPDATE orders o SET status = ${to}, updated_at = now()
            FROM (SELECT status FROM orders WHERE id = ${orderId} FOR UPDATE) before
           WHERE o.id = ${orderId} AND before.status IN ('pending', 'processing') AND before.status <> ${to}
          RETURNING before.status AS "fromStatus", (order_record(o)).*`,
    );
    const [moved] = rows;
    if (moved) {
      await recordOrderEvent(client, orderId, moved.fromStatus, to, reason);
      if (to === "pending") await recordOrderWebhookEvent(client, "order.pending", moved);
    }
  });
}
