// Turns stored order rows into the Invoice (OpenAPI: Invoice). Codes are decrypted here and only here,
// for the owner's own request (every caller has already scoped the rows to the account).
import type pg from "pg";
import { getPool } from "../db/pool";
import { decryptCode } from "../codes/code-crypto";
import { centsToUsd } from "../money/cents-to-usd";
import type { LineKind, OrderStatus } from "../generated/prisma/enums";

export interface OrderRow {
  id: number;
  public_id: string;
  account_id: number;
  api_key_id: number | null;
  trxid: string;
  idempotency_key: string;
  request_fingerprint: string;
  catalog_id: string;
  line_slug: string;
  line_kind: LineKind;
  pack_name: string;
  unit_price_cents: number;
  quantity: number;
  amount_cents: number;
  user_id: string | null;
  zone_id: string | null;
  server_id: string | null;
  /** As sent by the client; the invoice echoes these (the columns above are canonical). */
  sent_user_id: string | null;
  sent_zone_id: string | null;
  sent_server_id: string | null;
  order_created: boolean;
  status: OrderStatus;
  error: string | null;
  refunded: boolean;
  needs_admin: boolean;
  created_at: Date;
  finished_at: Date | null;
}

export type Invoice = ReturnType<typeof toInvoice>;

export function toInvoice(order: OrderRow, codes?: string[]) {
  const finished = order.finished_at && (order.status === "completed" || order.status === "cancelled");
  return {
    orderCreated: order.order_created,
    orderId: order.public_id,
    trxid: order.trxid,
    status: order.status,
    game: order.line_slug,
    packName: order.pack_name,
    amountUsd: centsToUsd(order.amount_cents),
    quantity: order.quantity,
    ...(order.user_id !== null ? { userId: order.sent_user_id ?? order.user_id } : {}),
    ...(order.zone_id !== null ? { zoneId: order.sent_zone_id ?? order.zone_id } : {}),
    ...(order.server_id !== null ? { serverId: order.sent_server_id ?? order.server_id } : {}),
    ...(order.status === "cancelled" ? { error: order.error ?? "CANCELLED", refunded: order.refunded } : {}),
    ...(codes && codes.length ? { codes } : {}),
    ...(finished ? { durationSec: Math.round((order.finished_at!.getTime() - order.created_at.getTime()) / 100) / 10 } : {}),
    createdAt: order.created_at.toISOString(),
  };
}

/** Invoices for rows of one account, with delivered codes fetched in one query for the lot. */
export async function buildInvoices(orders: OrderRow[], client: Pick<pg.PoolClient, "query"> = getPool()) {
  const withCodes = orders.filter((o) => o.status === "completed" && o.line_kind !== "topup").map((o) => o.id);
  const codesByOrder = new Map<number, string[]>();
  if (withCodes.length) {
    const { rows } = await client.query<{ order_id: number; ciphertext: string }>(
      `SELECT order_id, ciphertext FROM inventory_codes WHERE order_id = ANY($1) AND status = 'delivered' ORDER BY id`,
      [withCodes],
    );
    for (const row of rows) codesByOrder.set(row.order_id, [...(codesByOrder.get(row.order_id) ?? []), decryptCode(row.ciphertext)]);
  }
  return orders.map((order) => toInvoice(order, codesByOrder.get(order.id)));
}

export async function buildInvoice(order: OrderRow, client?: Pick<pg.PoolClient, "query">) {
  return (await buildInvoices([order], client))[0];
}
