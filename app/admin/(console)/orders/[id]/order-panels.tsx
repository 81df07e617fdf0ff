// The panels of one order's page: the two ways to settle an order waiting for an admin, the order's
// fields, its timeline, and the money it moved with what admins did to it.
import Link from "next/link";
import type { OrderDetail } from "@/lib/dashboard/read-order-detail";
import { formatDuration, formatSignedUsd, formatTime, formatUsd } from "../../../_lib/format";
import { GatedActionForm } from "../../../_components/gated-action-form";
import { cancelAndRefundFlaggedOrderAction, completeFlaggedOrderAction } from "./actions";

type Order = OrderDetail["order"];

export function SettleFlaggedOrder({ order, accountName }: { order: Order; accountName: string }) {
  return (
    <section className="panel alert" aria-label="Settle this order">
      <h2>Waiting for an admin</h2>
      <p>
        The supplier&apos;s outcome could not be settled automatically. Check with the supplier whether {order.packName}{" "}
        reached player <code>{order.userId ?? "—"}</code>, then settle it once:
      </p>
      <div className="grid-2">
        <GatedActionForm
          role="operator"
          action={completeFlaggedOrderAction}
          submitLabel="Mark completed"
          confirm={`Mark ${order.publicId} completed? The customer keeps being charged ${formatUsd(order.amountCents)} and sees the order as delivered.`}
          tone="primary"
          layout="stacked"
          label="Mark completed"
        >
          <input type="hidden" name="orderId" value={order.id} />
          <input name="reason" placeholder="Note for the log (e.g. supplier confirmed delivery)" maxLength={200} />
        </GatedActionForm>
        <GatedActionForm
          role="operator"
          action={cancelAndRefundFlaggedOrderAction}
          submitLabel="Cancel and refund"
          confirm={`Cancel ${order.publicId} and refund ${formatUsd(order.amountCents)} to account ${accountName}? The customer sees CANCELLED BY ADMIN.`}
          tone="danger"
          layout="stacked"
          label="Cancel and refund"
        >
          <input type="hidden" name="orderId" value={order.id} />
          <input name="reason" placeholder="Note for the log (e.g. supplier refused)" maxLength={200} />
        </GatedActionForm>
      </div>
    </section>
  );
}

export function OrderFields({ detail, accountName }: { detail: OrderDetail; accountName: string }) {
  const { order, account } = detail;
  return (
    <section className="panel" aria-label="Order">
      <h2>Order</h2>
      <table className="kv">
        <tbody>
          <tr>
            <th>Order id</th>
            <td>{order.id}</td>
          </tr>
          <tr>
            <th>Public id</th>
            <td className="mono">{order.publicId}</td>
          </tr>
          <tr>
            <th>trxid</th>
            <td className="mono">{order.trxid}</td>
          </tr>
          <tr>
            <th>Idempotency key</th>
            <td className="mono">{order.idempotencyKey}</td>
          </tr>
          <tr>
            <th>Account</th>
            <td>
              <Link href={`/admin/accounts/${account.id}`}>{accountName}</Link> (balance{" "}
              {formatUsd(account.balanceCents)})
            </td>
          </tr>
          <tr>
            <th>API key</th>
            <td className="mono">{detail.apiKeyPrefix ?? "—"}</td>
          </tr>
          <OrderOutcomeRows detail={detail} />
        </tbody>
      </table>
    </section>
  );
}

/** What was ordered, and what became of it. */
function OrderOutcomeRows({ detail }: { detail: OrderDetail }) {
  const { order, codes } = detail;
  return (
    <>
      <tr>
        <th>Product</th>
        <td>
          {order.lineSlug} · {order.packName} <span className="mono muted">({order.catalogId})</span>
        </td>
      </tr>
      <tr>
        <th>Price</th>
        <td>
          {formatUsd(order.unitPriceCents)} × {order.quantity} = <strong>{formatUsd(order.amountCents)}</strong>{" "}
          <span className="muted">(price when placed)</span>
        </td>
      </tr>
      <tr>
        <th>Player / zone / server</th>
        <td className="mono">
          {order.userId ?? "—"} / {order.zoneId ?? "—"} / {order.serverId ?? "—"}
        </td>
      </tr>
      <tr>
        <th>Error</th>
        <td>{order.error ?? "—"}</td>
      </tr>
      <tr>
        <th>Refunded</th>
        <td>{order.refunded ? "yes" : "no"}</td>
      </tr>
      <tr>
        <th>Supplier</th>
        <td>
          {order.supplier ?? "—"} {order.supplierRef ? <span className="mono">({order.supplierRef})</span> : null} ·
          attempts {order.attempts}
        </td>
      </tr>
      {order.lineKind !== "topup" ? (
        <tr>
          <th>Codes</th>
          <td>
            {codes.reserved} reserved, {codes.delivered} delivered
            {codes.revoked ? `, ${codes.revoked} revoked (refunded)` : ""} (not shown here)
          </td>
        </tr>
      ) : null}
      <tr>
        <th>Created</th>
        <td>{formatTime(order.createdAt)}</td>
      </tr>
      <tr>
        <th>Finished</th>
        <td>
          {formatTime(order.finishedAt)} ({formatDuration(order.createdAt, order.finishedAt)})
        </td>
      </tr>
    </>
  );
}

export function OrderTimeline({ events }: { events: OrderDetail["events"] }) {
  return (
    <section className="panel" aria-label="Timeline">
      <h2>Timeline</h2>
      {events.length === 0 ? (
        <p className="muted">No events.</p>
      ) : (
        <ol className="timeline">
          {events.map((event) => (
            <li key={event.id} className={event.reason.startsWith("flagged") ? "flag" : event.toStatus}>
              <strong>{event.fromStatus ? `${event.fromStatus} → ${event.toStatus}` : event.toStatus}</strong> ·{" "}
              {formatTime(event.createdAt)}
              <br />
              <span>{event.reason}</span>
              {event.data ? <span className="mono muted"> {JSON.stringify(event.data)}</span> : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function OrderMoneyAndAudit({ ledger, audit }: Pick<OrderDetail, "ledger" | "audit">) {
  return (
    <section className="panel" aria-label="Ledger entries">
      <h2>Ledger entries</h2>
      {ledger.length === 0 ? (
        <p className="muted">This order moved no money.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th>#</th>
              <th>Kind</th>
              <th className="num">Amount</th>
              <th className="num">Balance after</th>
              <th>By</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {ledger.map((entry) => (
              <tr key={entry.id}>
                <td>{entry.id}</td>
                <td>{entry.kind}</td>
                <td className="num">{formatSignedUsd(entry.amountCents)}</td>
                <td className="num">{formatUsd(entry.balanceAfterCents)}</td>
                <td className="mono">{entry.actor}</td>
                <td>{formatTime(entry.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {audit.length > 0 ? (
        <>
          <h2 className="spaced">Admin actions</h2>
          <table className="data">
            <tbody>
              {audit.map((entry) => (
                <tr key={entry.id}>
                  <td>{formatTime(entry.createdAt)}</td>
                  <td className="mono">{entry.actor}</td>
                  <td>{entry.action}</td>
                  <td className="mono wrap">{JSON.stringify(entry.details)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
