// The terminal transitions of an order, used by the worker and by an admin settling a flagged
// order. Each runs in one transaction that first moves the order out of a non-terminal status with
// a guarded UPDATE: whoever loses a race (a second worker, a redelivered job, an admin clicking
// twice) changes nothing. The refund is a ledger entry linked to the order, and the (order, kind)
// unique constraint makes a second one impossible even if this guard were bypassed.
import type pg from "pg";
import { withTransaction } from "../db/pool";
import { postLedgerEntry } from "../wallet/post-ledger-entry";
import { recordAuditEntry, type AuditEntry } from "../audit/record-audit-entry";
import { ORDER_RECORD_COLUMNS, orderRecordColumns, type OrderRecord } from "../orders/order-record";
import { recordOrderEvent } from "../orders/record-order-event";
import type { OrderStatus } from "../generated/prisma/enums";
import { recordOrderWebhookEvent } from "../webhooks/record-order-webhook-event";

/** An admin's audit entry, built from the order as settled and committed with the settlement. */
export type SettlementAudit = (order: OrderRecord) => AuditEntry;

export const ORDER_FINISHED_CHANNEL = "order_finished";

export type SettleResult = { settled: true; order: OrderRecord } | { settled: false };

async function finish(
  orderId: number,
  to: "completed" | "cancelled",
  reason: string,
  actor: string,
  work: (client: pg.PoolClient, order: OrderRecord, auditLogId: number | undefined) => Promise<void>,
  error?: string,
  audit?: SettlementAudit,
): Promise<SettleResult> {
  return withTransaction(async (client) => {
    const before = await client.query<Pick<OrderRecord, "status">>(`SELECT status FROM orders WHERE id = $1 FOR UPDATE`, [orderId]);
    const from = before.rows[0]?.status;
    if (from !== "pending" && from !== "processing") return { settled: false };
    const { rows } = await client.query<OrderRecord>(
      `UPDATE orders SET status = $2, error = $3, needs_admin = false, finished_at = now(), updated_at = now()
        WHERE id = $1 RETURNING ${ORDER_RECORD_COLUMNS}`,
      [orderId, to, error ?? null],
    );
    const auditLogId = audit ? await recordAuditEntry(audit(rows[0]), client) : undefined;
    await work(client, rows[0], auditLogId);
    await recordOrderEvent(client, orderId, from, to, reason, { actor });
    await client.query(`SELECT pg_notify($1, $2)`, [ORDER_FINISHED_CHANNEL, String(orderId)]);
    const final = await client.query<OrderRecord>(`SELECT ${ORDER_RECORD_COLUMNS} FROM orders WHERE id = $1`, [orderId]);
    await recordOrderWebhookEvent(client, to === "completed" ? "order.completed" : "order.cancelled", final.rows[0]);
    return { settled: true, order: final.rows[0] };
  });
}

/** Delivered: reserved codes become delivered. */
export function completeOrder(orderId: number, reason: string, actor = "worker", audit?: SettlementAudit): Promise<SettleResult> {
  return finish(
    orderId,
    "completed",
    reason,
    actor,
    async (client) => {
      await client.query(
        `UPDATE inventory_codes SET status = 'delivered', delivered_at = now() WHERE order_id = $1 AND status = 'reserved'`,
        [orderId],
      );
    },
    undefined,
    audit,
  );
}

/** Not delivered: the charge is refunded once and reserved codes go back to stock. */
export function cancelAndRefundOrder(orderId: number, error: string, actor = "worker", audit?: SettlementAudit): Promise<SettleResult> {
  return finish(
    orderId,
    "cancelled",
    `${error}: refunded`,
    actor,
    async (client, order, auditLogId) => {
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
        await client.query(`UPDATE orders SET refunded = true WHERE id = $1`, [orderId]);
      }
      await client.query(
        `UPDATE inventory_codes SET status = 'available', order_id = NULL, reserved_at = NULL WHERE order_id = $1 AND status = 'reserved'`,
        [orderId],
      );
    },
    error,
    audit,
  );
}

/** An outcome nobody could settle in time: an admin decides (complete, or cancel and refund). */
export async function flagOrderForAdmin(orderId: number, reason: string): Promise<boolean> {
  return withTransaction(async (client) => {
    const { rows } = await client.query<OrderRecord>(
      `UPDATE orders SET needs_admin = true, updated_at = now()
        WHERE id = $1 AND status IN ('pending', 'processing') AND NOT needs_admin RETURNING ${ORDER_RECORD_COLUMNS}`,
      [orderId],
    );
    if (rows.length === 0) return false;
    await recordOrderEvent(client, orderId, rows[0].status, rows[0].status, `flagged for an admin: ${reason}`);
    await recordOrderWebhookEvent(client, "order.flagged", rows[0]);
    return true;
  });
}

/** A non-terminal status change with its event (processing <-> pending). */
export async function moveOrder(orderId: number, to: "pending" | "processing", reason: string): Promise<void> {
  await withTransaction(async (client) => {
    const { rows } = await client.query<OrderRecord & { fromStatus: OrderStatus }>(
      `UPDATE orders o SET status = $2, updated_at = now()
         FROM (SELECT status FROM orders WHERE id = $1 FOR UPDATE) before
        WHERE o.id = $1 AND before.status IN ('pending', 'processing') AND before.status <> $2
        RETURNING before.status AS "fromStatus", ${orderRecordColumns("o")}`,
      [orderId, to],
    );
    if (rows.length) {
      await recordOrderEvent(client, orderId, rows[0].fromStatus, to, reason);
      if (to === "pending") await recordOrderWebhookEvent(client, "order.pending", rows[0]);
    }
  });
}
