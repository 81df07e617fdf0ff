// Turns stored order rows into the Invoice (OpenAPI: Invoice). Codes are decrypted here and only here,
// for the owner's own request (every caller has already scoped the rows to the account).
import type pg from "pg";
import { getPool } from "../../db/pool";
import { decryptCode } from "../../codes/code-crypto";
import { testCodes } from "../../codes/test-codes";
import { centsToUsd } from "../../money/cents-to-usd";
import type { OrderRecord } from "../order-record";
import { sql } from "../../db/run-sql";
import { readRefundRequests } from "../../refunds/sql/read-refund-requests";
import { toRefundRequestView, type RefundRequestRecord } from "../../refunds/refund-request-record";

export type Invoice = ReturnType<typeof toInvoice>;

export function toInvoice(order: OrderRecord, codes?: string[], refundRequest?: RefundRequestRecord) {
  const finished = order.finishedAt && (order.status === "completed" || order.status === "cancelled");
  // Flagged (not settled by SUPPLIER_DEADLINE_MS) and not yet settled by an admin.
  const awaitingAdmin = order.needsAdmin && (order.status === "pending" || order.status === "processing");
  return {
    orderCreated: order.orderCreated,
    orderId: order.publicId,
    trxid: order.trxid,
    status: order.status,
    game: order.lineSlug,
    packName: order.packName,
    pid: order.catalogId,
    amountUsd: centsToUsd(order.amountCents),
    quantity: order.quantity,
    ...(order.userId !== null ? { userId: order.sentUserId ?? order.userId } : {}),
    ...(order.zoneId !== null ? { zoneId: order.sentZoneId ?? order.zoneId } : {}),
    ...(order.serverId !== null ? { serverId: order.sentServerId ?? order.serverId } : {}),
    // Present only while true: an order without it is not waiting for anyone.
    ...(awaitingAdmin ? { awaitingAdmin: true as const } : {}),
    ...(order.status === "cancelled" ? { error: order.error ?? "CANCELLED", refunded: order.refunded } : {}),
    ...(codes && codes.length ? { codes } : {}),
    ...(finished
      ? { durationSec: Math.round((order.finishedAt!.getTime() - order.createdAt.getTime()) / 100) / 10 }
      : {}),
    // Like the other optional fields, present only when the order has some.
    ...(order.metadata ? { metadata: order.metadata } : {}),
    ...(refundRequest ? { refundRequest: toRefundRequestView(refundRequest) } : {}),
    createdAt: order.createdAt.toISOString(),
    livemode: order.livemode,
  };
}

/**
 * Invoices for rows of one account, with delivered codes fetched in one query for the lot, and the
 * refund requests of those that have one in another.
 */
export async function buildInvoices(orders: OrderRecord[], client: Pick<pg.PoolClient, "query"> = getPool()) {
  const delivered = orders.filter((o) => o.status === "completed" && o.lineKind !== "topup");
  const withCodes = delivered.filter((o) => o.livemode).map((o) => o.id);
  const codesByOrder = new Map<number, string[]>(delivered.filter((o) => !o.livemode).map((o) => [o.id, testCodes(o)]));
  if (withCodes.length) {
    const { rows } = await client.query<{ orderId: number; ciphertext: string }>(
      sql`SELECT order_id AS "orderId", ciphertext FROM inventory_codes
          WHERE order_id = ANY(${withCodes}) AND status = 'delivered' ORDER BY id`,
    );
    for (const row of rows)
      codesByOrder.set(row.orderId, [...(codesByOrder.get(row.orderId) ?? []), decryptCode(row.ciphertext)]);
  }
  const refunds = await readRefundRequests(
    client,
    orders.filter((o) => o.refundRequested).map((o) => o.id),
  );
  return orders.map((order) => toInvoice(order, codesByOrder.get(order.id), refunds.get(order.id)));
}

export async function buildInvoice(order: OrderRecord, client?: Pick<pg.PoolClient, "query">) {
  return (await buildInvoices([order], client))[0]!; // one order in, one invoice out
}
