// One order as the dashboard's tables show it; shared by the paged list, search and the backlog.
import type { Prisma } from "../generated/prisma/client";
import type { OrderStatus } from "../generated/prisma/enums";
import { numberFromDb } from "../db/number-from-db";

export type { OrderStatus };

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

/** The Prisma select behind an OrderListItem (pass the row to toOrderListItem). */
export const ORDER_LIST_SELECT = {
  id: true,
  publicId: true,
  accountId: true,
  account: { select: { telegramUsername: true } },
  trxid: true,
  lineSlug: true,
  packName: true,
  quantity: true,
  amountCents: true,
  userId: true,
  zoneId: true,
  serverId: true,
  status: true,
  orderCreated: true,
  needsAdmin: true,
  refunded: true,
  error: true,
  createdAt: true,
  finishedAt: true,
} as const satisfies Prisma.OrderSelect;

export type OrderListRow = Prisma.OrderGetPayload<{ select: typeof ORDER_LIST_SELECT }>;

export function toOrderListItem({ account, amountCents, ...order }: OrderListRow): OrderListItem {
  return { ...order, accountUsername: account.telegramUsername, amountCents: numberFromDb(amountCents) };
}
