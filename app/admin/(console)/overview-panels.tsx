// The overview's panels: the cards of what needs an admin and how the day went, the packs no real
// supplier carries, the packs low on codes, and the margins of a range.
import Link from "next/link";
import type { Margins } from "@/lib/dashboard/sql/read-margins";
import type { OrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import type { readOrderBacklog } from "@/lib/dashboard/read-order-backlog";
import type { readWalletLiability } from "@/lib/dashboard/read-wallet-liability";
import type { listLowStock } from "@/lib/dashboard/list-low-stock";
import type { listPacksWithoutRealSupplier } from "@/lib/dashboard/sql/list-packs-without-real-supplier";
import { formatPercent, formatSeconds, formatUsd } from "../_lib/format";

export function OverviewCards({
  backlog,
  liability,
  totals,
}: {
  backlog: Awaited<ReturnType<typeof readOrderBacklog>>;
  liability: Awaited<ReturnType<typeof readWalletLiability>>;
  totals: OrderMetrics["totals"];
}) {
  return (
    <div className="cards">
      <Link
        href="/admin/orders?status=needs_admin"
        className={`card${backlog.awaitingAdmin > 0 ? " alert" : ""}`}
        data-testid="awaiting-admin"
      >
        <div className="label">Waiting for an admin</div>
        <div className="value">{backlog.awaitingAdmin}</div>
      </Link>
      <div className="card" data-testid="wallet-liability" data-cents={liability.totalCents}>
        <div className="label">Owed to holders (live wallets)</div>
        <div className="value">{formatUsd(liability.totalCents)}</div>
        <div className="muted small">{liability.fundedAccounts} funded accounts</div>
      </div>
      <div className="card">
        <div className="label">In flight (worker)</div>
        <div className="value">{backlog.inFlight}</div>
      </div>
      <div className="card">
        <div className="label">Orders, 24 h</div>
        <div className="value">{totals.total}</div>
      </div>
      <div className="card">
        <div className="label">Revenue, 24 h</div>
        <div className="value">{formatUsd(totals.revenueCents)}</div>
      </div>
      <div className="card">
        <div className="label">Success rate, 24 h</div>
        <div className="value">{formatPercent(totals.successRate)}</div>
      </div>
      <div className="card">
        <div className="label">Fulfilment p50 / p95, 24 h</div>
        <div className="value smaller">
          {formatSeconds(totals.p50Seconds)} / {formatSeconds(totals.p95Seconds)}
        </div>
      </div>
    </div>
  );
}

export function UnsuppliedPacks({
  unsupplied,
}: {
  unsupplied: Awaited<ReturnType<typeof listPacksWithoutRealSupplier>>;
}) {
  return (
    <section className="panel" role="alert" aria-label="Packs without a real supplier" data-testid="unsupplied-packs">
      <h2>Live packs no real supplier carries: their orders are refused</h2>
      <p className="muted small">
        In production a live top-up goes to a real supplier (not the sandbox, not paused) or is refused with
        INVALID_PRODUCT, charging nothing; <code>GET /products</code> shows these packs with{" "}
        <code>orderable: false</code>. Add a supplier and an offer for each on{" "}
        <Link href="/admin/suppliers">Suppliers</Link>, or resume a paused one.
      </p>
      <div className="table-wrap">
        <table className="data" aria-label="Live packs without a real supplier">
          <thead>
            <tr>
              <th>Pack</th>
              <th>Game</th>
              <th>Real suppliers</th>
            </tr>
          </thead>
          <tbody>
            {unsupplied.map((pack) => (
              <tr key={pack.productId} data-unsupplied={pack.catalogId}>
                <td>
                  {pack.catalogId} · {pack.packName}
                </td>
                <td>{pack.gameName}</td>
                <td>{pack.pausedSuppliers.length > 0 ? `paused: ${pack.pausedSuppliers.join(", ")}` : "none"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function LowStock({ lowStock }: { lowStock: Awaited<ReturnType<typeof listLowStock>> }) {
  return (
    <section className="panel" aria-label="Low stock">
      <h2>Low stock (below the pack&apos;s alert)</h2>
      <div className="table-wrap">
        <table className="data" aria-label="Packs below their stock alert">
          <thead>
            <tr>
              <th>Pack</th>
              <th className="num">Codes left</th>
              <th className="num">Alert below</th>
            </tr>
          </thead>
          <tbody>
            {lowStock.map((pack) => (
              <tr key={pack.productId} data-low-stock={pack.catalogId}>
                <td>
                  <Link href="/admin/catalog">{pack.catalogId}</Link> · {pack.packName}
                </td>
                <td className="num">{pack.available}</td>
                <td className="num">{pack.threshold}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function MarginTable({ heading, margins }: { heading: string; margins: Margins }) {
  const rows = [
    { key: "total", label: "All", figures: margins.total },
    ...margins.byLine.map((entry) => ({ key: `line:${entry.line}`, label: `line ${entry.line}`, figures: entry })),
    ...margins.bySupplier.map((entry) => ({
      key: `supplier:${entry.supplier}`,
      label: `supplier ${entry.supplier}`,
      figures: entry,
    })),
  ];
  return (
    <table className="data" aria-label={`Margins, ${heading}`}>
      <caption>{heading}</caption>
      <thead>
        <tr>
          <th />
          <th className="num">Orders</th>
          <th className="num">Revenue</th>
          <th className="num">Cost</th>
          <th className="num">Margin</th>
          <th className="num">Margin %</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ key, label, figures }) => (
          <tr key={key} data-margin={key}>
            <td>{label}</td>
            <td className="num">{figures.orders}</td>
            <td className="num">{formatUsd(figures.revenueCents)}</td>
            <td className="num">{formatUsd(figures.costCents)}</td>
            <td className="num">{formatUsd(figures.marginCents)}</td>
            <td className="num">{formatPercent(figures.marginRate)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
