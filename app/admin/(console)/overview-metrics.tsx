// The overview's charts of a range (orders by status, revenue, success rate, fulfilment time) and
// the numbers behind them, per hour or per day.
import type { OrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import { formatPercent, formatSeconds, formatTime, formatUsd } from "../_lib/format";
import { BarChart, LineChart, type ChartColumn } from "../_components/charts";

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
export function MetricsSection({ metrics, heading }: { metrics: OrderMetrics; heading: string }) {
  return (
    <section aria-label={heading} className="metrics">
      <h2>{heading}</h2>
      <MetricsCharts metrics={metrics} />
      <MetricsNumbers metrics={metrics} heading={heading} />
    </section>
  );
}

function MetricsCharts({ metrics }: { metrics: OrderMetrics }) {
  const columns = columnsOf(metrics);
  const labelEvery = metrics.unit === "hour" ? 3 : 1;
  const count = (value: number) => String(Math.round(value));
  return (
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
  );
}

function MetricsNumbers({ metrics, heading }: { metrics: OrderMetrics; heading: string }) {
  return (
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
  );
}
