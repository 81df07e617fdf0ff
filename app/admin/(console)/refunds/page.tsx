// Refund requests: the open ones, each with the two ways to decide it (refund all or part, or
// decline), and the latest decided ones.
import Link from "next/link";
import { listRefundRequests, type RefundRequestItem } from "@/lib/dashboard/list-refund-requests";
import { requireAdminPage } from "../../_lib/session";
import { formatTime, formatUsd } from "../../_lib/format";
import { GatedActionForm } from "../../_components/gated-action-form";
import { declineRefundRequestAction, refundRequestAction } from "./actions";

export const metadata = { title: "Refunds · Top-up operations" };

export default async function RefundsPage() {
  await requireAdminPage();
  const { open, decided } = await listRefundRequests();
  return (
    <>
      <h1>Refund requests</h1>
      <p className="muted">
        Holders ask within the refund window of the order&apos;s line (Catalog). A refund goes back to the wallet once;
        a refunded game key or gift card is revoked unless you put it back in stock.
      </p>
      <h2>Open ({open.length})</h2>
      {open.length === 0 ? <p className="muted">No open request.</p> : null}
      {open.map((request) => (
        <OpenRequest key={request.id} request={request} />
      ))}
      <h2>Decided</h2>
      <DecidedTable requests={decided} />
    </>
  );
}

function OrderLine({ request }: { request: RefundRequestItem }) {
  const { order } = request;
  return (
    <p>
      <Link href={`/admin/orders/${order.id}`} className="mono">
        {order.publicId}
      </Link>{" "}
      · <Link href={`/admin/accounts/${order.accountId}`}>account #{order.accountId}</Link> · {order.lineSlug} ·{" "}
      {order.packName}
      {order.quantity > 1 ? ` ×${order.quantity}` : ""} · <strong>{formatUsd(order.amountCents)}</strong>
      {order.livemode ? "" : " · test"} · completed {formatTime(order.finishedAt)} · asked{" "}
      {formatTime(request.createdAt)} by <span className="mono">{request.requestedBy}</span>
    </p>
  );
}

function OpenRequest({ request }: { request: RefundRequestItem }) {
  const { order } = request;
  const codes = order.lineKind !== "topup";
  return (
    <section className="panel" aria-label={`Refund request ${request.id}`}>
      <OrderLine request={request} />
      <blockquote data-testid="refund-reason">{request.reason}</blockquote>
      <div className="grid-2">
        <GatedActionForm
          role="operator"
          action={refundRequestAction}
          submitLabel="Refund"
          confirm={`Refund this amount of ${order.publicId} to account #${order.accountId}? It is decided once.${codes ? " Its codes are revoked unless put back in stock." : ""}`}
          tone="primary"
          layout="stacked"
          label={`Refund request ${request.id}: refund`}
        >
          <input type="hidden" name="requestId" value={request.id} />
          <label>
            Amount, USD (up to {formatUsd(order.amountCents)})
            <input name="amountUsd" inputMode="decimal" defaultValue={(order.amountCents / 100).toFixed(2)} required />
          </label>
          {codes ? (
            <label>
              <input type="checkbox" name="restock" /> Put its codes back in stock (only if they were never used)
            </label>
          ) : null}
          <input name="note" placeholder="Note to the holder (optional)" maxLength={300} />
        </GatedActionForm>
        <GatedActionForm
          role="operator"
          action={declineRefundRequestAction}
          submitLabel="Decline"
          confirm={`Decline the refund of ${order.publicId}? Nothing moves; it is decided once.`}
          tone="danger"
          layout="stacked"
          label={`Refund request ${request.id}: decline`}
        >
          <input type="hidden" name="requestId" value={request.id} />
          <input name="note" placeholder="Why (shown to the holder)" maxLength={300} />
        </GatedActionForm>
      </div>
    </section>
  );
}

function DecidedTable({ requests }: { requests: RefundRequestItem[] }) {
  if (requests.length === 0) return <p className="muted">None yet.</p>;
  return (
    <table className="data" aria-label="Decided refund requests">
      <thead>
        <tr>
          <th>Order</th>
          <th>Decision</th>
          <th className="num">Refunded</th>
          <th>Note</th>
          <th>By</th>
          <th>When</th>
        </tr>
      </thead>
      <tbody>
        {requests.map((request) => (
          <tr key={request.id}>
            <td>
              <Link href={`/admin/orders/${request.order.id}`} className="mono">
                {request.order.publicId}
              </Link>
            </td>
            <td>
              {request.status}
              {request.restocked ? " (codes restocked)" : ""}
            </td>
            <td className="num">{request.refundCents === null ? "—" : formatUsd(request.refundCents)}</td>
            <td>{request.decisionNote ?? "—"}</td>
            <td className="mono">{request.decidedBy}</td>
            <td>{formatTime(request.decidedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
