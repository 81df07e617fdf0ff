// Order events carry the order's Invoice as GET /orders/{orderId} answers it, without `codes`:
// delivered codes stay encrypted at rest and reach their owner only through the API.
import type pg from "pg";
import { toInvoice } from "../orders/sql/build-invoice";
import type { OrderRecord } from "../orders/order-record";
import { recordWebhookEvent } from "./sql/record-webhook-event";

export type OrderEventType = "order.completed" | "order.cancelled" | "order.pending" | "order.flagged";

export function recordOrderWebhookEvent(
  client: Pick<pg.PoolClient, "query">,
  type: OrderEventType,
  order: OrderRecord,
) {
  return recordWebhookEvent(client, { accountId: order.accountId, type, data: toInvoice(order) });
}
