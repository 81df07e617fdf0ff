// The order as the hot path's raw SQL reads it (placement, the API's reads, fulfilment and
// settlement, the order webhook events): Prisma's Order, the fields those paths use, with cents as
// numbers. Every raw statement that returns orders selects ORDER_RECORD_COLUMNS (or
// orderRecordColumns(alias)) and gets this shape back from pg as is.
import type { Order } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";
import { selectList, type ColumnMap } from "../db/select-list";

export type OrderRecord = BigintsAsNumbers<
  Pick<
    Order,
    | "id"
    | "publicId"
    | "accountId"
    | "apiKeyId"
    | "trxid"
    | "idempotencyKey"
    | "requestFingerprint"
    | "catalogId"
    | "lineSlug"
    | "lineKind"
    | "packName"
    | "unitPriceCents"
    | "quantity"
    | "amountCents"
    | "userId"
    | "zoneId"
    | "serverId"
    | "sentUserId"
    | "sentZoneId"
    | "sentServerId"
    | "orderCreated"
    | "status"
    | "error"
    | "refunded"
    | "needsAdmin"
    | "supplier"
    | "createdAt"
    | "finishedAt"
  >
>;

const ORDER_COLUMN_MAP: ColumnMap<OrderRecord> = {
  id: "id",
  publicId: "public_id",
  accountId: "account_id",
  apiKeyId: "api_key_id",
  trxid: "trxid",
  idempotencyKey: "idempotency_key",
  requestFingerprint: "request_fingerprint",
  catalogId: "catalog_id",
  lineSlug: "line_slug",
  lineKind: "line_kind",
  packName: "pack_name",
  unitPriceCents: "unit_price_cents",
  quantity: "quantity",
  amountCents: "amount_cents",
  userId: "user_id",
  zoneId: "zone_id",
  serverId: "server_id",
  // As sent by the client: the invoice echoes these, the supplier gets the canonical ones above.
  sentUserId: "sent_user_id",
  sentZoneId: "sent_zone_id",
  sentServerId: "sent_server_id",
  orderCreated: "order_created",
  status: "status",
  error: "error",
  refunded: "refunded",
  needsAdmin: "needs_admin",
  supplier: "supplier",
  createdAt: "created_at",
  finishedAt: "finished_at",
};

/** The select list of an OrderRecord from `orders` under the table alias `alias`. */
export function orderRecordColumns(alias: string): string {
  return selectList(ORDER_COLUMN_MAP, alias);
}

/** The select list of an OrderRecord from `orders` unaliased (for RETURNING). */
export const ORDER_RECORD_COLUMNS = selectList(ORDER_COLUMN_MAP);
