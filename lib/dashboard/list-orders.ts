// The dashboard's order table: newest first, filtered, paged by id (keyset), so page 500 costs the
// same as page 1 and a row never shows twice while new orders arrive.
import { getPrisma } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { OrderStatus } from "../generated/prisma/enums";
import { ORDER_LIST_SELECT, toOrderListItem, type OrderListItem } from "./order-list-item";

/** A stored status, or one of the two states operators ask about that are not a status. */
export type OrderStatusFilter = OrderStatus | "needs_admin" | "refused";
export const ORDER_STATUS_FILTERS: OrderStatusFilter[] = [...Object.values(OrderStatus), "needs_admin", "refused"];

export interface OrderFilters {
  /** Live orders unless "test" (test mode's, left out of everything else the dashboard shows). */
  mode?: "live" | "test";
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

const DEFAULT_ORDER_PAGE_SIZE = 50;

export async function listOrders(filters: OrderFilters, page: OrderPageRequest = {}): Promise<OrderPage> {
  const limit = Math.min(Math.max(page.limit ?? DEFAULT_ORDER_PAGE_SIZE, 1), 200);
  const where: Prisma.OrderWhereInput[] = [];

  switch (filters.status) {
    case undefined:
      break;
    case "needs_admin":
      where.push({ needsAdmin: true, status: { in: ["pending", "processing"] } });
      break;
    case "refused":
      where.push({ status: "cancelled", orderCreated: false });
      break;
    case "cancelled":
      where.push({ status: "cancelled", orderCreated: true });
      break;
    default:
      where.push({ status: filters.status });
  }
  const livemode = filters.mode !== "test";
  where.push({ livemode });
  if (filters.lineSlug) where.push({ lineSlug: filters.lineSlug });
  // An account's test orders are its test account's.
  if (filters.accountId !== undefined)
    where.push(livemode ? { accountId: filters.accountId } : { account: { liveAccountId: filters.accountId } });
  if (filters.createdFrom) where.push({ createdAt: { gte: filters.createdFrom } });
  if (filters.createdBefore) where.push({ createdAt: { lt: filters.createdBefore } });

  const goingNewer = page.newerThan !== undefined && page.olderThan === undefined;
  if (page.olderThan !== undefined) where.push({ id: { lt: page.olderThan } });
  if (goingNewer) where.push({ id: { gt: page.newerThan } });

  // One extra row tells whether another page exists in the direction of travel.
  const rows = await getPrisma().order.findMany({
    select: ORDER_LIST_SELECT,
    where: { AND: where },
    orderBy: { id: goingNewer ? "asc" : "desc" },
    take: limit + 1,
  });
  const more = rows.length > limit;
  const orders = rows.slice(0, limit).map(toOrderListItem);
  if (goingNewer) orders.reverse();
  const first = orders[0]?.id;
  const last = orders[orders.length - 1]?.id;
  return {
    orders,
    olderCursor: (goingNewer ? orders.length > 0 : more) ? last : undefined,
    newerCursor: (goingNewer ? more : page.olderThan !== undefined) && orders.length > 0 ? first : undefined,
  };
}
