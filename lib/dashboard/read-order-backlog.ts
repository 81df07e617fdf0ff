import { getPrisma } from "../db/prisma";
import { ORDER_LIST_SELECT, toOrderListItem, type OrderListItem } from "./order-list-item";

export interface OrderBacklog {
  /** Flagged for an admin (needs_admin) and still open: nobody else will settle them. */
  awaitingAdmin: number;
  /** Open orders the worker is still working on (not flagged). */
  inFlight: number;
  /** The longest-waiting flagged orders, oldest first. */
  oldestAwaitingAdmin: OrderListItem[];
}

export async function readOrderBacklog(limit = 10): Promise<OrderBacklog> {
  const prisma = getPrisma();
  // Live orders only: test mode's are the integrators' own experiments.
  const open = { status: { in: ["pending" as const, "processing" as const] }, livemode: true };
  // Both read the (status, needs_admin) index: only open orders are looked at.
  const [byFlag, oldest] = await Promise.all([
    prisma.order.groupBy({ by: ["needsAdmin"], where: open, _count: { _all: true } }),
    prisma.order.findMany({
      select: ORDER_LIST_SELECT,
      where: { ...open, needsAdmin: true },
      orderBy: { id: "asc" },
      take: limit,
    }),
  ]);
  const count = (flagged: boolean) => byFlag.find((group) => group.needsAdmin === flagged)?._count._all ?? 0;
  return { awaitingAdmin: count(true), inFlight: count(false), oldestAwaitingAdmin: oldest.map(toOrderListItem) };
}
