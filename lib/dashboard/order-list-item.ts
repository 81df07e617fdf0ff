// One order as the dashboard's tables show it; shared by the paged list, search and the backlog.

export type OrderStatus = "pending" | "processing" | "completed" | "cancelled";

export interface OrderListItem {
  id: number;
  publicId: string;
  accountId: number;
  accountUsername: string | null;
  trxid: string;
  lineSlug: string;
  packName: string;
  quantity: number;
  amountCents: number;
  userId: string | null;
  zoneId: string | null;
  serverId: string | null;
  status: OrderStatus;
  orderCreated: boolean;
  needsAdmin: boolean;
  refunded: boolean;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** Selects an OrderListItem from `orders o JOIN accounts a`. */
export const ORDER_LIST_COLUMNS = `o.id, o.public_id AS "publicId", o.account_id AS "accountId", a.telegram_username AS "accountUsername",
  o.trxid, o.line_slug AS "lineSlug", o.pack_name AS "packName", o.quantity, o.amount_cents AS "amountCents",
  o.user_id AS "userId", o.zone_id AS "zoneId", o.server_id AS "serverId", o.status, o.order_created AS "orderCreated",
  o.needs_admin AS "needsAdmin", o.refunded, o.error, o.created_at AS "createdAt", o.finished_at AS "finishedAt"`;
