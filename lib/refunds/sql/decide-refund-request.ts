// An admin decides a refund request on the dashboard: refund all or part of the order (in cents), or
// decline. The decision is one conditional UPDATE from `requested`, so two admins (or one clicking
// twice) decide it once; the refund is the order's `refund` ledger entry, which the (order, kind)
// unique constraint allows once whatever happens above it. A refunded game key or gift card is
// revoked (never sold again), unless the admin puts it back in stock.
import type pg from "pg";
import { withTransaction } from "../../db/pool";
import { sql } from "../../db/run-sql";
import { recordAuditEntry } from "../../audit/sql/record-audit-entry";
import { postLedgerEntry } from "../../wallet/sql/post-ledger-entry";
import { recordOrderEvent } from "../../orders/sql/record-order-event";
import type { OrderRecord } from "../../orders/order-record";
import { recordOrderWebhookEvent } from "../../webhooks/record-order-webhook-event";
import { toRefundRequestView, type RefundRequestRecord } from "../refund-request-record";

export type RefundDecision = { decision: "refund"; refundCents: number; restock: boolean } | { decision: "decline" };

export type DecideRefundResult =
  | { status: "decided"; request: RefundRequestRecord; order: OrderRecord }
  | { status: "not_found" }
  /** Decided before (by another admin, or an earlier click): nothing changed. */
  | { status: "already_decided"; decidedAs: RefundRequestRecord["status"] }
  /** Not a whole number of cents from 1 to the order's amount. */
  | { status: "invalid_amount"; maxCents: number };

export async function decideRefundRequest(
  input: { requestId: number; note: string; actor: string } & RefundDecision,
): Promise<DecideRefundResult> {
  const refundCents = input.decision === "refund" ? input.refundCents : null;
  return withTransaction(async (client) => {
    const { rows } = await client.query<RefundRequestRecord & { amountCents: number; decidedNow: boolean }>(
      sql`WITH target AS (
            -- Locked, so a concurrent decision waits here and then reads the row as decided.
            SELECT r.id, r.status, o.amount_cents FROM refund_requests r JOIN orders o ON o.id = r.order_id
             WHERE r.id = ${input.requestId} FOR UPDATE OF r
          ), decided AS (
            UPDATE refund_requests r
               SET status = ${input.decision === "refund" ? "refunded" : "declined"}::"RefundRequestStatus",
                   refund_cents = ${refundCents}::bigint, decision_note = ${input.note || null}::text,
                   restocked = ${input.decision === "refund" && input.restock}, decided_by = ${input.actor}, decided_at = now()
              FROM target t
             WHERE r.id = t.id AND r.status = 'requested'
               AND (${refundCents}::bigint IS NULL OR ${refundCents}::bigint BETWEEN 1 AND t.amount_cents)
            RETURNING r.id
          )
          SELECT r.id, r.order_id AS "orderId", r.reason, t.status, r.refund_cents AS "refundCents",
                 r.decision_note AS "decisionNote", r.decided_at AS "decidedAt", r.created_at AS "createdAt",
                 t.amount_cents AS "amountCents", EXISTS (SELECT 1 FROM decided) AS "decidedNow"
            FROM refund_requests r JOIN target t ON t.id = r.id`,
    );
    const [row] = rows;
    if (!row) return { status: "not_found" };
    const { amountCents, decidedNow, ...before } = row;
    if (!decidedNow) {
      return before.status === "requested"
        ? { status: "invalid_amount", maxCents: amountCents }
        : { status: "already_decided", decidedAs: before.status };
    }
    // The row above is the snapshot from before the UPDATE: read the decided request and its order.
    const decided = await client.query<RefundRequestRecord>(
      sql`SELECT id, order_id AS "orderId", reason, status, refund_cents AS "refundCents",
                 decision_note AS "decisionNote", decided_at AS "decidedAt", created_at AS "createdAt"
            FROM refund_requests WHERE id = ${input.requestId}`,
    );
    const orders = await client.query<OrderRecord>(
      sql`SELECT (order_record(o)).* FROM orders o WHERE o.id = ${before.orderId}`,
    );
    const request = decided.rows[0]!;
    const order = orders.rows[0]!;
    await settleDecision(client, input, request, order);
    return { status: "decided", request, order };
  });
}

/** The decision's consequences, in its transaction: the audit entry, the money, the codes, the events. */
async function settleDecision(
  client: pg.PoolClient,
  input: { note: string; actor: string } & RefundDecision,
  request: RefundRequestRecord,
  order: OrderRecord,
): Promise<void> {
  const refunded = input.decision === "refund";
  const auditLogId = await recordAuditEntry(
    {
      actor: input.actor,
      action: refunded ? "order.refund" : "order.refund_decline",
      targetType: "order",
      targetId: order.id,
      details: {
        publicId: order.publicId,
        refundRequestId: request.id,
        refundCents: request.refundCents,
        restocked: refunded && input.restock,
        note: input.note || null,
      },
    },
    client,
  );
  if (refunded) {
    await postLedgerEntry(client, {
      accountId: order.accountId,
      kind: "refund",
      amountCents: input.refundCents,
      orderId: order.id,
      actor: input.actor,
      reason: input.note || "refund request",
      auditLogId,
    });
    if (order.lineKind !== "topup") {
      await client.query(
        input.restock
          ? sql`UPDATE inventory_codes SET status = 'available', order_id = NULL, reserved_at = NULL, delivered_at = NULL
                 WHERE order_id = ${order.id} AND status = 'delivered'`
          : sql`UPDATE inventory_codes SET status = 'revoked' WHERE order_id = ${order.id} AND status = 'delivered'`,
      );
    }
  }
  const eventReason = refunded
    ? `refund request: ${input.refundCents} cents refunded${input.restock ? ", codes back in stock" : ""}`
    : "refund request declined";
  await recordOrderEvent(client, order.id, order.status, order.status, eventReason, {
    actor: input.actor,
    refundRequestId: request.id,
  });
  await recordOrderWebhookEvent(client, refunded ? "order.refunded" : "order.refund_declined", order, {
    refundRequest: toRefundRequestView(request),
  });
}
