// Order events carry the order's Invoice as GET /orders/{orderId} answers it, without `codes`:
// delivered codes stay encrypted at rest and reach their owner only through the API.
import type pg from "pg";
import { toInvoice } from "../orders/sql/build-invoice";
import type { OrderRecord } from "../orders/order-record";
import { recordWebhookEvent } from "./sql/record-webhook-event";

export type OrderEventType =
  | "order.completed"
  | "order.cancelled"
  | "order.pending"
  | "order.flagged"
  | "order.refund_requested"
  | "order.refunded"
  | "order.refund_declined";

export function recordOrderWebhookEvent(
  client: Pick<pg.PoolClient, "query">,
  type: OrderEventType,
  order: OrderRecord,
  /** Fields the event adds to the invoice: who cancelled, the refund request's state. */
  extra?: Record<string, unknown>,
) {
  return recordWebhookEvent(client, { accountId: order.accountId, type, data: { ...toInvoice(order), ...extra } });
}
