// The dashboard's orders, filtered as the orders page filters them, as a CSV download. Streamed a
// page at a time, so an export of a busy month neither waits for the last row nor holds every row
// in memory. Trxids, player ids, metadata and errors come from resellers and suppliers, so every text cell
// goes through the shared CSV writer, which neutralises formulas.
import { centsToUsd } from "../money/cents-to-usd";
import { csvHeaderLine, csvNumber, csvRowLine } from "../csv/to-csv";
import { listOrders, type OrderFilters } from "./list-orders";
import type { OrderListItem } from "./order-list-item";

const ORDER_EXPORT_COLUMNS = [
  "order_id",
  "status",
  "charged",
  "needs_admin",
  "account_id",
  "account_username",
  "line",
  "pack",
  "quantity",
  "amount_usd",
  "cost_usd",
  "margin_usd",
  "user_id",
  "zone_id",
  "server_id",
  "trxid",
  "error",
  "created_at",
  "finished_at",
  "livemode",
  "metadata",
] as const;

const PAGE_SIZE = 200;

function orderRow(order: OrderListItem) {
  const charged = !(order.status === "cancelled" && !order.orderCreated);
  // Cost and margin belong to a completed order only: a cancelled one cost nothing and earned nothing.
  const cost = order.status === "completed" ? order.costCents : null;
  return csvRowLine([
    order.publicId,
    order.status,
    charged,
    order.needsAdmin,
    order.accountId,
    order.accountUsername,
    order.lineSlug,
    order.packName,
    order.quantity,
    csvNumber(centsToUsd(order.amountCents), 2),
    cost === null ? null : csvNumber(centsToUsd(cost), 2),
    cost === null ? null : csvNumber(centsToUsd(order.amountCents - cost), 2),
    order.userId,
    order.zoneId,
    order.serverId,
    order.trxid,
    order.error,
    order.createdAt,
    order.finishedAt,
    order.livemode,
    // The client's references as JSON text, one cell; empty when the order has none.
    order.metadata === null ? null : JSON.stringify(order.metadata),
  ]);
}

/** The CSV as a stream of UTF-8 bytes: the header, then the orders newest first, a page per pull. */
export function streamOrdersCsv(filters: OrderFilters): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let olderThan: number | undefined;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(csvHeaderLine(ORDER_EXPORT_COLUMNS)));
      }
      const page = await listOrders(filters, { olderThan, limit: PAGE_SIZE });
      if (page.orders.length > 0) controller.enqueue(encoder.encode(page.orders.map(orderRow).join("")));
      olderThan = page.olderCursor;
      if (olderThan === undefined) controller.close();
    },
  });
}
