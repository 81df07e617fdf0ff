// Overview: what needs an admin now, and how the last 24 hours and 7 days went.
import Link from "next/link";
import { single, type PageSearchParams } from "../_lib/search-params";
import { readOrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import { readMargins } from "@/lib/dashboard/sql/read-margins";
import { readOrderBacklog } from "@/lib/dashboard/read-order-backlog";
import { readWalletLiability } from "@/lib/dashboard/read-wallet-liability";
import { listLowStock } from "@/lib/dashboard/list-low-stock";
import { listPacksWithoutRealSupplier } from "@/lib/dashboard/sql/list-packs-without-real-supplier";
import { sandboxServesLiveOrders } from "@/lib/config/sandbox-serves-live-orders";
import { requireAdminPage } from "../_lib/session";
import { formatTime } from "../_lib/format";
import { OrderTable } from "../_components/order-table";
import { MetricsSection } from "./overview-metrics";
import { LowStock, MarginTable, OverviewCards, UnsuppliedPacks } from "./overview-panels";

export const metadata = { title: "Overview · Top-up operations" };

const DAY_MS = 86_400_000;

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
      <OverviewCards backlog={backlog} liability={liability} totals={day.totals} />

      {unsupplied.length > 0 ? <UnsuppliedPacks unsupplied={unsupplied} /> : null}

      {backlog.awaitingAdmin > 0 ? (
        <section className="panel" aria-label="Waiting for an admin">
          <h2>Waiting for an admin (oldest first)</h2>
          <OrderTable orders={backlog.oldestAwaitingAdmin} />
        </section>
      ) : null}

      {lowStock.length > 0 ? <LowStock lowStock={lowStock} /> : null}

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
