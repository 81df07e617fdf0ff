// Orders: search by anything a customer pastes, or browse newest first with filters.
import Link from "next/link";
import { redirect } from "next/navigation";
import { listGameLineSlugs } from "@/lib/dashboard/list-game-line-slugs";
import { listOrders, ORDER_STATUS_FILTERS } from "@/lib/dashboard/list-orders";
import { searchOrders } from "@/lib/dashboard/search-orders";
import { requireAdminPage } from "../../_lib/session";
import { cursorParam, queryString, single, type PageSearchParams } from "../../_lib/search-params";
import { OrderTable } from "../../_components/order-table";
import { readOrderFilters } from "./read-order-filters";

export const metadata = { title: "Orders · Top-up operations" };

export default async function OrdersPage({ searchParams }: { searchParams: PageSearchParams }) {
  await requireAdminPage();
  const params = await searchParams;
  const q = single(params, "q");

  if (q) {
    const result = await searchOrders(q);
    // One match is what the admin was looking for: open it.
    const [only] = result.matches;
    if (only && result.matches.length === 1) redirect(`/admin/orders/${only.id}`);
    return <SearchResults q={q} result={result} />;
  }

  const { filters, problems, kept } = await readOrderFilters(params);
  const [lines, page] = await Promise.all([
    listGameLineSlugs(),
    listOrders(filters, { olderThan: cursorParam(params, "older"), newerThan: cursorParam(params, "newer") }),
  ]);

  return (
    <>
      <h1>Orders</h1>
      <SearchForm q="" />
      <FilterForm kept={kept} lines={lines} />
      {problems.map((problem) => (
        <p key={problem} className="result error" role="alert">
          {problem}
        </p>
      ))}
      <OrderTable orders={page.orders} />
      <nav className="pager" aria-label="Pages">
        {page.newerCursor !== undefined ? (
          <Link href={`/admin/orders${queryString({ ...kept, newer: page.newerCursor })}`}>← Newer</Link>
        ) : null}
        {page.olderCursor !== undefined ? (
          <Link href={`/admin/orders${queryString({ ...kept, older: page.olderCursor })}`}>Older →</Link>
        ) : null}
      </nav>
    </>
  );
}

function SearchForm({ q }: { q: string }) {
  return (
    <form className="filters" method="get" action="/admin/orders" role="search" aria-label="Find an order">
      <label>
        Find an order
        <input
          type="search"
          name="q"
          defaultValue={q}
          placeholder="SVCAPI-…, order id, trxid or player id"
          aria-label="Order public id, order id or number, trxid or player id"
        />
      </label>
      <button type="submit" className="primary">
        Find
      </button>
    </form>
  );
}

function SearchResults({ q, result }: { q: string; result: Awaited<ReturnType<typeof searchOrders>> }) {
  return (
    <>
      <h1>Orders</h1>
      <SearchForm q={q} />
      <p data-testid="search-summary">
        {result.matches.length === 0
          ? `No order matches “${result.query}” (public id, order id, trxid, idempotency key or player id).`
          : `${result.matches.length}${result.truncated ? "+" : ""} orders match “${result.query}”.`}{" "}
        <Link href="/admin/orders">Clear search</Link>
      </p>
      {result.matches.length > 0 ? <OrderTable orders={result.matches} extra="matchedBy" /> : null}
    </>
  );
}

/** The filters as the admin set them (kept), the lines to choose from, and the CSV of what they select. */
function FilterForm({
  kept,
  lines,
}: {
  kept: Awaited<ReturnType<typeof readOrderFilters>>["kept"];
  lines: Awaited<ReturnType<typeof listGameLineSlugs>>;
}) {
  return (
    <form className="filters" method="get" action="/admin/orders" aria-label="Filter orders">
      <label>
        Status
        <select name="status" defaultValue={kept.status}>
          <option value="">any</option>
          {ORDER_STATUS_FILTERS.map((value) => (
            <option key={value} value={value}>
              {value === "needs_admin" ? "needs admin" : value}
            </option>
          ))}
        </select>
      </label>
      <label>
        Line
        <select name="line" defaultValue={kept.line}>
          <option value="">any</option>
          {lines.map((entry) => (
            <option key={entry.slug} value={entry.slug}>
              {entry.slug} · {entry.gameName}
            </option>
          ))}
        </select>
      </label>
      <label>
        Account
        <input name="account" defaultValue={kept.account} placeholder="42 or @username" size={14} />
      </label>
      <label>
        Mode
        <select name="mode" defaultValue={kept.mode ?? ""}>
          <option value="">live</option>
          <option value="test">test</option>
        </select>
      </label>
      <label>
        From (UTC)
        <input name="from" type="date" defaultValue={kept.from} />
      </label>
      <label>
        To (UTC, inclusive)
        <input name="to" type="date" defaultValue={kept.to} />
      </label>
      <button type="submit">Filter</button>
      <Link href="/admin/orders">Reset</Link>
      <a href={`/admin/orders/export.csv${queryString(kept)}`} download>
        Export CSV
      </a>
    </form>
  );
}
