// One order: what the client sees (the invoice), what happened (events), what it did to the wallet
// (ledger), what admins did (audit), and, when it waits for an admin, the two ways to settle it.
import Link from "next/link";
import { notFound } from "next/navigation";
import { readOrderDetail } from "@/lib/dashboard/read-order-detail";
import { requireAdminPage } from "../../../_lib/session";
import { OrderStatusBadge } from "../../../_components/status-badge";
import { OrderFields, OrderMoneyAndAudit, OrderTimeline, SettleFlaggedOrder } from "./order-panels";

export const metadata = { title: "Order · Top-up operations" };

export default async function OrderPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireAdminPage();
  const detail = /^\d{1,10}$/.test(id) ? await readOrderDetail(Number(id)) : undefined;
  if (!detail) notFound();
  const { order, account, events, ledger, audit } = detail;
  const open = order.status === "pending" || order.status === "processing";
  const accountName = `#${account.id}${account.telegramUsername ? ` @${account.telegramUsername}` : ""}`;

  return (
    <>
      <p className="muted">
        <Link href="/admin/orders">Orders</Link> / {order.id}
      </p>
      <h1>
        <span className="mono">{order.publicId}</span>{" "}
        <OrderStatusBadge status={order.status} orderCreated={order.orderCreated} needsAdmin={order.needsAdmin} />
      </h1>
      {order.needsAdmin && open ? <SettleFlaggedOrder order={order} accountName={accountName} /> : null}
      {detail.invoice.refundRequest?.status === "requested" ? (
        <section className="panel alert" aria-label="Refund requested">
          <h2>Refund requested</h2>
          <p>
            {detail.invoice.refundRequest.reason} · decide it on <Link href="/admin/refunds">Refunds</Link>
          </p>
        </section>
      ) : null}

      <div className="grid-2">
        <OrderFields detail={detail} accountName={accountName} />
        <section className="panel" aria-label="Invoice">
          <h2>Invoice as the client sees it</h2>
          <pre className="json" data-testid="invoice">
            {JSON.stringify(detail.invoice, null, 2)}
          </pre>
        </section>
      </div>

      <div className="grid-2">
        <OrderTimeline events={events} />
        <OrderMoneyAndAudit ledger={ledger} audit={audit} />
      </div>
    </>
  );
}
