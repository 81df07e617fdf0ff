// The orders table shared by the order list, the search results and the overview's backlog.
import Link from "next/link";
import type { OrderListItem } from "@/lib/dashboard/order-list-item";
import { formatDuration, formatTime, formatUsd } from "../_lib/format";
import { DataTable, type Column } from "./data-table";
import { OrderStatusBadge } from "./status-badge";

const COLUMNS: Column[] = [
  { label: "#", num: true },
  "Order",
  "Status",
  "Account",
  "Line / pack",
  { label: "Amount", num: true },
  { label: "Cost / margin", num: true },
  "Player",
  "trxid",
  "Created",
  { label: "Took", num: true },
];

export function OrderTable({
  orders,
  extra,
}: {
  orders: (OrderListItem & { matchedBy?: string })[];
  extra?: "matchedBy";
}) {
  return (
    <DataTable
      label="Orders"
      columns={extra === "matchedBy" ? [...COLUMNS, "Matched by"] : COLUMNS}
      rows={orders}
      empty="No orders."
    >
      {(order) => (
        <tr key={order.id} data-order-id={order.id}>
          <td className="num">{order.id}</td>
          <td>
            <Link href={`/admin/orders/${order.id}`} className="mono" prefetch={false}>
              {order.publicId}
            </Link>
            {order.livemode ? null : (
              <>
                {" "}
                <span className="badge">test</span>
              </>
            )}
          </td>
          <td>
            <OrderStatusBadge status={order.status} orderCreated={order.orderCreated} needsAdmin={order.needsAdmin} />
          </td>
          <td>
            <Link href={`/admin/accounts/${order.accountId}`} prefetch={false}>
              #{order.accountId}
              {order.accountUsername ? ` @${order.accountUsername}` : ""}
            </Link>
          </td>
          <td>
            {order.lineSlug} · {order.packName}
            {order.quantity > 1 ? ` ×${order.quantity}` : ""}
          </td>
          <td className="num">
            {order.status === "cancelled" && !order.orderCreated ? (
              <span className="muted" title="Refused at placement: nothing was charged">
                <s>{formatUsd(order.amountCents)}</s>
              </span>
            ) : (
              formatUsd(order.amountCents)
            )}
          </td>
          <td className="num">
            {order.status === "completed" && order.costCents !== null
              ? `${formatUsd(order.costCents)} / ${formatUsd(order.amountCents - order.costCents)}`
              : "—"}
          </td>
          <td className="mono">
            {order.userId ?? "—"}
            {order.zoneId ? ` (${order.zoneId})` : ""}
            {order.serverId ? ` [${order.serverId}]` : ""}
          </td>
          <td className="mono">{order.trxid}</td>
          <td>{formatTime(order.createdAt)}</td>
          <td className="num">{formatDuration(order.createdAt, order.finishedAt)}</td>
          {extra === "matchedBy" ? <td>{order.matchedBy}</td> : null}
        </tr>
      )}
    </DataTable>
  );
}
