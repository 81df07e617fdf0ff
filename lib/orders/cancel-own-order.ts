// A holder cancels one of their orders (POST /orders/{orderId}/cancel, the bot's /cancel). Only an
// order no supplier has been asked about can be taken back: a key or gift-card order not yet
// delivered, a top-up the worker has not claimed. The cancel is the worker's own settlement
// (settle-order.ts) with that extra guard, under the row lock the worker's claim also takes, so a
// cancel racing the worker has one winner and the refund is posted once.
import { cancelAndRefundOrder } from "../fulfilment/sql/settle-order";
import type { OrderRecord } from "./order-record";
import { findOwnOrder } from "./sql/read-order";
import { orderIdReference, parseOrderReference } from "./parse-order-reference";
import { getPrisma } from "../db/prisma";
import { ApiError } from "../http/errors";

/** The invoice's `error` of an order its holder cancelled. */
const CANCELLED_BY_RESELLER = "CANCELLED BY RESELLER";

export type CancelOrderResult =
  | { status: "cancelled"; order: OrderRecord }
  /** A top-up the worker has sent to a supplier: its outcome is the supplier's now. */
  | { status: "with_supplier"; order: OrderRecord }
  /** Completed or cancelled already (a second cancel lands here). */
  | { status: "finished"; order: OrderRecord };

export async function cancelOwnOrder(input: {
  accountId: number;
  /** An order of that account (as findOwnOrder found it). */
  order: Pick<OrderRecord, "id" | "publicId">;
  /** "api-key:<id>" or "telegram:<id>": on the ledger's refund and the order's event. */
  actor: string;
  via: "api" | "bot";
}): Promise<CancelOrderResult> {
  const result = await cancelAndRefundOrder(input.order.id, CANCELLED_BY_RESELLER, {
    actor: input.actor,
    unsentOnly: true,
    eventData: { cancelledBy: { by: "reseller", via: input.via } },
  });
  if (result.settled) return { status: "cancelled", order: result.order };
  const { order } = await findOwnOrder(input.accountId, orderIdReference(input.order));
  const finished = order.status === "completed" || order.status === "cancelled";
  return { status: finished ? "finished" : "with_supplier", order };
}

/**
 * The bot's /cancel <order>: the holder's order by any reference form, live or (test mode) of the
 * holder's test account; undefined when neither has it.
 */
export async function cancelHolderOrder(input: {
  holderId: number;
  reference: string;
  actor: string;
}): Promise<CancelOrderResult | undefined> {
  const test = await getPrisma().account.findUnique({ where: { liveAccountId: input.holderId }, select: { id: true } });
  for (const accountId of test ? [input.holderId, test.id] : [input.holderId]) {
    const found = await findOwnOrder(accountId, parseOrderReference(input.reference)).catch((error: unknown) => {
      if (error instanceof ApiError && error.key === "ORDER_NOT_FOUND") return undefined;
      throw error;
    });
    if (found) return cancelOwnOrder({ accountId, order: found.order, actor: input.actor, via: "bot" });
  }
  return undefined;
}
