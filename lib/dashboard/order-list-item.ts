// One order as the dashboard's tables show it; shared by the paged list, search and the backlog.
import type { Prisma } from "../generated/prisma/client";
import { numberFromDb } from "../db/number-from-db";
import type { OrderRecord } from "../orders/order-record";
import { metadataFromDb } from "../orders/order-metadata";

/** The order's fields the tables show, and its holder's @username. */
export type OrderListItem = Pick<
  OrderRecord,
  | "id"
  | "publicId"
  | "accountId"
  | "trxid"
  | "lineSlug"
  | "packName"
  | "quantity"
  | "amountCents"
  | "userId"
  | "zoneId"
  | "serverId"
  | "status"
  | "orderCreated"
  | "needsAdmin"
  | "refunded"
  | "error"
  | "createdAt"
  | "finishedAt"
  | "livemode"
  | "metadata"
> & { accountUsername: string | null; costCents: number | null };

/** The Prisma select behind an OrderListItem (pass the row to toOrderListItem). */
export const ORDER_LIST_SELECT = {
  id: true,
  publicId: true,
  accountId: true,
  account: { select: { telegramUsername: true, liveAccount: { select: { id: true, telegramUsername: true } } } },
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
  livemode: true,
  metadata: true,
  costCents: true,
} as const satisfies Prisma.OrderSelect;

export type OrderListRow = Prisma.OrderGetPayload<{ select: typeof ORDER_LIST_SELECT }>;

/** A test order (test mode) is shown as its holder's: its own account is the holder's test wallet. */
export function toOrderListItem({ account, amountCents, costCents, metadata, ...order }: OrderListRow): OrderListItem {
  const holder = account.liveAccount;
  return {
    ...order,
    accountId: holder?.id ?? order.accountId,
    accountUsername: holder ? holder.telegramUsername : account.telegramUsername,
    amountCents: numberFromDb(amountCents),
    costCents: costCents === null ? null : numberFromDb(costCents),
    metadata: metadataFromDb(metadata),
  };
}
