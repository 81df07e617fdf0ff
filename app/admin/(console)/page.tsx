// Overview: what needs an admin now, and how the last 24 hours and 7 days went.
import Link from "next/link";
import { single, type PageSearchParams } from "../_lib/search-params";
import { readOrderMetrics, type OrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import { readMargins, type Margins } from "@/lib/dashboard/sql/read-margins";
import { readOrderBacklog } from "@/lib/dashboard/read-order-backlog";
import { readWalletLiability } from "@/lib/dashboard/read-wallet-liability";
import { listLowStock } from "@/lib/dashboard/list-low-stock";
import { listPacksWithoutRealSupplier } from "@/lib/dashboard/sql/list-packs-without-real-supplier";
import { sandboxServesLiveOrders } from "@/lib/config/sandbox-serves-live-orders";
import { requireAdminPage } from "../_lib/session";
import { formatPercent, formatSeconds, formatTime, formatUsd } from "../_lib/format";
import { BarChart, LineChart, type ChartColumn } from "../_components/charts";
import { OrderTable } from "../_components/order-table";

export const metadata = { title: "Overview · Top-up operations" };

const STATUS_SERIES = [
  { key: "completed", label: "completed", color: "#34a853" },
  { key: "cancelled", label: "cancelled (refunded)", color: "#d93025" },
  { key: "refused", label: "refused (no balance)", color: "#9aa0a6" },
  { key: "processing", label: "processing", color: "#4285f4" },
  { key: "pending", label: "pending", color: "#f9ab00" },
];

function columnsOf(metrics: OrderMetrics): ChartColumn[] {
  return metrics.buckets.map((bucket) => {
    const iso = bucket.start.toISOString();
    const label = metrics.unit === "hour" ? iso.slice(11, 16) : iso.slice(5, 10);
    const title =
      metrics.unit === "hour"
        ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}–${bucket.end.toISOString().slice(11, 16)} UTC`
        : `${iso.slice(0, 10)} (UTC day)`;
    return {
      label,
      title,
      values: {
        completed: bucket.completed,
        cancelled: bucket.cancelled,
        refused: bucket.refused,
        processing: bucket.processing,
        pending: bucket.pending,
        revenue: bucket.revenueCents,
        successRate: bucket.successRate,
        p50: bucket.p50Seconds,
        p95: bucket.p95Seconds,
      },
    };
  });
}

function MetricsSection({ metrics, heading }: { metrics: OrderMetrics; heading: string }) {
  const columns = columnsOf(metrics);
  const labelEvery = metrics.unit === "hour" ? 3 : 1;
  const count = (value: number) => String(Math.round(value));
  return (
    <section aria-label={heading} className="metrics">
      <h2>{heading}</h2>
      <div className="grid-2">
        <BarChart
          title="Orders by status"
          series={STATUS_SERIES}
          columns={columns}
          formatValue={count}
          labelEvery={labelEvery}
          integer
        />
        <BarChart
          title="Revenue (completed orders)"
          series={[{ key: "revenue", label: "revenue", color: "#1f5fbf" }]}
          columns={columns}
          formatValue={formatUsd}
          labelEvery={labelEvery}
        />
        <LineChart
          title="Success rate (completed ÷ finished)"
          series={[{ key: "successRate", label: "success rate", color: "#137333" }]}
          columns={columns}
          formatValue={formatPercent}
          labelEvery={labelEvery}
          yMax={1}
        />
        <LineChart
          title="Fulfilment time of completed orders (to 0.1 s)"
          series={[
            { key: "p50", label: "p50", color: "#1f5fbf" },
            { key: "p95", label: "p95", color: "#b06000" },
          ]}
          columns={columns}
          formatValue={formatSeconds}
          labelEvery={labelEvery}
        />
      </div>
      <details className="numbers">
        <summary>Numbers behind these charts</summary>
        <div className="table-wrap">
          <table className="data" data-metrics={metrics.range} aria-label={`${heading}: numbers`}>
            <thead>
              <tr>
                <th>{metrics.unit === "hour" ? "Hour (UTC)" : "Day (UTC)"}</th>
                <th className="num">Orders</th>
                <th className="num">Completed</th>
                <th className="num">Cancelled</th>
                <th className="num">Refused</th>
                <th className="num">Processing</th>
                <th className="num">Pending</th>
                <th className="num">Revenue</th>
                <th className="num">Success</th>
                <th className="num">p50</th>
                <th className="num">p95</th>
              </tr>
            </thead>
            <tbody>
              {[
                ...metrics.buckets.map((bucket) => ({
                  key: bucket.start.toISOString(),
                  start: bucket.start,
                  figures: bucket,
                })),
                { key: "total", start: undefined, figures: metrics.totals },
              ].map(({ key, start, figures }) => (
                <tr
                  key={key}
                  data-bucket={start ? start.toISOString() : "total"}
                  data-total={figures.total}
                  data-completed={figures.completed}
                  data-cancelled={figures.cancelled}
                  data-refused={figures.refused}
                  data-processing={figures.processing}
                  data-pending={figures.pending}
                  data-revenue-cents={figures.revenueCents}
                  data-success-rate={figures.successRate ?? ""}
                  data-p50-seconds={figures.p50Seconds ?? ""}
                  data-p95-seconds={figures.p95Seconds ?? ""}
                >
                  <td>
                    {start ? (
                      formatTime(start).replace(":00 UTC", "").replace(" 00:00", "")
                    ) : (
                      <strong>Whole range</strong>
                    )}
                  </td>
                  <td className="num">{figures.total}</td>
                  <td className="num">{figures.completed}</td>
                  <td className="num">{figures.cancelled}</td>
                  <td className="num">{figures.refused}</td>
                  <td className="num">{figures.processing}</td>
                  <td className="num">{figures.pending}</td>
                  <td className="num">{formatUsd(figures.revenueCents)}</td>
                  <td className="num">{formatPercent(figures.successRate)}</td>
                  <td className="num">{formatSeconds(figures.p50Seconds)}</td>
                  <td className="num">{formatSeconds(figures.p95Seconds)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}

const DAY_MS = 86_400_000;

function MarginTable({ heading, margins }: { heading: string; margins: Margins }) {
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

export default async function OverviewPage({ searchParams }: { searchParams: PageSearchParams }) {
  await requireAdminPage();
  // Test mode's orders are left out unless asked for, and then shown alone.
  const livemode = single(await searchParams, "mode") !== "test";
  const now = new Date();
  const [day, week, backlog, dayMargins, weekMargins, liability, lowStock, unsupplied] = await Promise.all([
    readOrderMetrics("24h", now, livemode),
    readOrderMetrics("7d", now, livemode),
    readOrderBacklog(),
    readMargins(new Date(now.getTime() - DAY_MS), now),
    readMargins(new Date(now.getTime() - 7 * DAY_MS), now),
    readWalletLiability(),
    listLowStock(),
    // Outside production the sandbox serves these packs' live orders: nothing to tell.
    sandboxServesLiveOrders() ? [] : listPacksWithoutRealSupplier(),
  ]);
  const totals = day.totals;
  return (
    <>
      <h1>Overview{livemode ? "" : ": test mode"}</h1>
      <p className="muted small" data-testid="mode-switch">
        {livemode ? (
          <>
            Live orders. <Link href="/admin?mode=test">Show test mode</Link> (integrators&apos; play money).
          </>
        ) : (
          <>
            Test mode&apos;s orders only (play money, not revenue). <Link href="/admin">Back to live</Link>
          </>
        )}
      </p>
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

      {unsupplied.length > 0 ? (
        <section
          className="panel"
          role="alert"
          aria-label="Packs without a real supplier"
          data-testid="unsupplied-packs"
        >
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
      ) : null}

      {backlog.awaitingAdmin > 0 ? (
        <section className="panel" aria-label="Waiting for an admin">
          <h2>Waiting for an admin (oldest first)</h2>
          <OrderTable orders={backlog.oldestAwaitingAdmin} />
        </section>
      ) : null}

      {lowStock.length > 0 ? (
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
      ) : null}

      {livemode ? (
        <section className="panel" aria-label="Margins">
          <h2>Revenue, cost and gross margin (completed orders)</h2>
          <MarginTable heading="Last 24 hours" margins={dayMargins} />
          <MarginTable heading="Last 7 days" margins={weekMargins} />
        </section>
      ) : null}

      <MetricsSection metrics={day} heading="Last 24 hours, per hour (UTC)" />
      <MetricsSection metrics={week} heading="Last 7 days, per day (UTC)" />
      <p className="muted small">
        Orders are counted in the hour or day they were placed, by their status now. Refused: cancelled at placement
        because the wallet could not cover it (nothing charged). Success rate: completed ÷ (completed + cancelled) among
        placed orders that finished. Fulfilment time: placement to completion, percentiles interpolated. Rendered{" "}
        {formatTime(now)}.
      </p>
    </>
  );
}
