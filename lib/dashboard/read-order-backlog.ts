import { getPrisma } from "../db/prisma";
import { ORDER_LIST_SELECT, toOrderListItem, type OrderListItem } from "./order-list-item";

/** Open live orders by who has them: the overview's two cards and the topup_orders_open gauge. */
export interface OpenOrderCounts {
  /** Flagged for an admin (needs_admin) and still open: nobody else will settle them. */
  awaitingAdmin: number;
  /** Open orders the worker is still working on (not flagged). */
  inFlight: number;
}

export interface OrderBacklog extends OpenOrderCounts {
  /** The longest-waiting flagged orders, oldest first. */
  oldestAwaitingAdmin: OrderListItem[];
}

// Live orders only: test mode's are the integrators' own experiments.
const OPEN = { status: { in: ["pending" as const, "processing" as const] }, livemode: true };

/** Reads the (status, needs_admin) index: only open orders are looked at. */
export async function countOpenOrders(): Promise<OpenOrderCounts> {
  const byFlag = await getPrisma().order.groupBy({ by: ["needsAdmin"], where: OPEN, _count: { _all: true } });
  const count = (flagged: boolean) => byFlag.find((group) => group.needsAdmin === flagged)?._count._all ?? 0;
  return { awaitingAdmin: count(true), inFlight: count(false) };
}

export async function readOrderBacklog(limit = 10): Promise<OrderBacklog> {
  const [counts, oldest] = await Promise.all([
    countOpenOrders(),
    getPrisma().order.findMany({
      select: ORDER_LIST_SELECT,
      where: { ...OPEN, needsAdmin: true },
      orderBy: { id: "asc" },
      take: limit,
    }),
  ]);
  return { ...counts, oldestAwaitingAdmin: oldest.map(toOrderListItem) };
}
