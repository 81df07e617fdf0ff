// A holder asks for the refund of a completed order (POST /orders/{orderId}/refund-request), within
// the window its line allows after completion. One request per order (a unique order_id): the
// request and its order.refund_requested event commit together; an admin decides it later
// (decide-refund-request.ts).
import { withTransaction } from "../../db/pool";
import { sql } from "../../db/run-sql";
import type { OrderRecord } from "../../orders/order-record";
import { recordOrderWebhookEvent } from "../../webhooks/record-order-webhook-event";
import { toRefundRequestView, type RefundRequestRecord } from "../refund-request-record";

export type RequestRefundResult =
  | { status: "requested"; order: OrderRecord; request: RefundRequestRecord }
  /** Not completed, or its line takes no refund requests. */
  | { status: "not_available" }
  | { status: "window_closed"; closedAt: Date }
  | { status: "already_requested" };

export async function requestRefund(input: {
  accountId: number;
  /** An order of that account (as findOwnOrder found it). */
  orderId: number;
  reason: string;
  /** "api-key:<id>" or "telegram:<id>". */
  actor: string;
}): Promise<RequestRefundResult> {
  return withTransaction(async (client) => {
    const { rows } = await client.query<OrderRecord & { closesAt: Date | null; open: boolean }>(
      sql`SELECT (order_record(o)).*, o.finished_at + make_interval(hours => l.refund_window_hours) AS "closesAt",
                 now() <= o.finished_at + make_interval(hours => l.refund_window_hours) AS open
            FROM orders o LEFT JOIN game_lines l ON l.slug = o.line_slug
           WHERE o.id = ${input.orderId} AND o.account_id = ${input.accountId}`,
    );
    const [found] = rows;
    if (!found) return { status: "not_available" };
    const { closesAt, open, refundRequested, status } = found;
    if (refundRequested) return { status: "already_requested" };
    if (status !== "completed" || closesAt === null) return { status: "not_available" };
    if (!open) return { status: "window_closed", closedAt: closesAt };
    const inserted = await client.query<RefundRequestRecord>(
      sql`INSERT INTO refund_requests (order_id, account_id, reason, requested_by)
          VALUES (${input.orderId}, ${input.accountId}, ${input.reason}, ${input.actor})
          ON CONFLICT (order_id) DO NOTHING
          RETURNING id, order_id AS "orderId", reason, status, refund_cents AS "refundCents",
                    decision_note AS "decisionNote", decided_at AS "decidedAt", created_at AS "createdAt"`,
    );
    const [request] = inserted.rows;
    // A request of the same order committed meanwhile.
    if (!request) return { status: "already_requested" };
    const marked = await client.query<OrderRecord>(
      sql`UPDATE orders o SET refund_requested = true WHERE o.id = ${input.orderId} RETURNING (order_record(o)).*`,
    );
    const order = marked.rows[0]!;
    await recordOrderWebhookEvent(client, "order.refund_requested", order, {
      refundRequest: toRefundRequestView(request),
    });
    return { status: "requested", order, request };
  });
}
