// The dashboard's order table: newest first, filtered, paged by id (keyset), so page 500 costs the
// same as page 1 and a row never shows twice while new orders arrive.
import { getPool } from "../db/pool";
import { ORDER_LIST_COLUMNS, type OrderListItem, type OrderStatus } from "./order-list-item";

/** A stored status, or one of the two states operators ask about that are not a status. */
export type OrderStatusFilter = OrderStatus | "needs_admin" | "refused";
export const ORDER_STATUS_FILTERS: OrderStatusFilter[] = ["pending", "processing", "completed", "cancelled", "needs_admin", "refused"];

export interface OrderFilters {
  status?: OrderStatusFilter;
  lineSlug?: string;
  accountId?: number;
  /** Inclusive. */
  createdFrom?: Date;
  /** Exclusive. */
  createdBefore?: Date;
}

export interface OrderPageRequest {
  /** Orders with a smaller id than this (the next, older page). */
  olderThan?: number;
  /** Orders with a greater id than this (the previous, newer page). */
  newerThan?: number;
  limit?: number;
}

export interface OrderPage {
  orders: OrderListItem[];
  /** Pass as olderThan for the next page; undefined on the last page. */
  olderCursor?: number;
  /** Pass as newerThan for the previous page; undefined on the first page. */
  newerCursor?: number;
}

export const DEFAULT_ORDER_PAGE_SIZE = 50;

export async function listOrders(filters: OrderFilters, page: OrderPageRequest = {}): Promise<OrderPage> {
  const limit = Math.min(Math.max(page.limit ?? DEFAULT_ORDER_PAGE_SIZE, 1), 200);
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown) => `$${values.push(value)}`;

  switch (filters.status) {
    case undefined:
      break;
    case "needs_admin":
      where.push(`o.needs_admin AND o.status IN ('pending', 'processing')`);
      break;
    case "refused":
      where.push(`o.status = 'cancelled' AND NOT o.order_created`);
      break;
    case "cancelled":
      where.push(`o.status = 'cancelled' AND o.order_created`);
      break;
    default:
      where.push(`o.status = ${param(filters.status)}`);
  }
  if (filters.lineSlug) where.push(`o.line_slug = ${param(filters.lineSlug)}`);
  if (filters.accountId !== undefined) where.push(`o.account_id = ${param(filters.accountId)}`);
  if (filters.createdFrom) where.push(`o.created_at >= ${param(filters.createdFrom)}`);
  if (filters.createdBefore) where.push(`o.created_at < ${param(filters.createdBefore)}`);

  const goingNewer = page.newerThan !== undefined && page.olderThan === undefined;
  if (page.olderThan !== undefined) where.push(`o.id < ${param(page.olderThan)}`);
  if (goingNewer) where.push(`o.id > ${param(page.newerThan)}`);

  // One extra row tells whether another page exists in the direction of travel.
  const { rows } = await getPool().query<OrderListItem>(
    `SELECT ${ORDER_LIST_COLUMNS} FROM orders o JOIN accounts a ON a.id = o.account_id
      ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY o.id ${goingNewer ? "ASC" : "DESC"} LIMIT ${param(limit + 1)}`,
    values,
  );
  const more = rows.length > limit;
  const orders = rows.slice(0, limit);
  if (goingNewer) orders.reverse();
  const first = orders[0]?.id;
  const last = orders[orders.length - 1]?.id;
  return {
    orders,
    olderCursor: (goingNewer ? orders.length > 0 : more) ? last : undefined,
    newerCursor: (goingNewer ? more : page.olderThan !== undefined) && orders.length > 0 ? first : undefined,
  };
}
