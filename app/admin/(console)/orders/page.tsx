// Orders: search by anything a customer pastes, or browse newest first with filters.
import Link from "next/link";
import { redirect } from "next/navigation";
import { findAccount } from "@/lib/accounts/find-account";
import { listGameLineSlugs } from "@/lib/dashboard/list-game-line-slugs";
import {
  listOrders,
  ORDER_STATUS_FILTERS,
  type OrderFilters,
  type OrderStatusFilter,
} from "@/lib/dashboard/list-orders";
import { searchOrders } from "@/lib/dashboard/search-orders";
import { requireAdminPage } from "../../_lib/session";
import { cursorParam, queryString, single, type PageSearchParams } from "../../_lib/search-params";
import { OrderTable } from "../../_components/order-table";

export const metadata = { title: "Orders · Top-up operations" };

const DAY_MS = 86_400_000;

function parseDay(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const date = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export default async function OrdersPage({ searchParams }: { searchParams: PageSearchParams }) {
  await requireAdminPage();
  const params = await searchParams;
  const q = single(params, "q");

  if (q) {
    const result = await searchOrders(q);
    // One match is what the admin was looking for: open it.
    const [only] = result.matches;
    if (only && result.matches.length === 1) redirect(`/admin/orders/${only.id}`);
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

  const status = single(params, "status");
  const line = single(params, "line");
  const accountText = single(params, "account");
  const from = single(params, "from");
  const to = single(params, "to");
  const mode = single(params, "mode") === "test" ? "test" : undefined;
  const problems: string[] = [];
  const filters: OrderFilters = { mode };
  if (status) {
    if ((ORDER_STATUS_FILTERS as string[]).includes(status)) filters.status = status as OrderStatusFilter;
    else problems.push(`Unknown status “${status}”.`);
  }
  if (line) filters.lineSlug = line;
  if (accountText) {
    const found = await findAccount(accountText);
    if (found.status === "found") filters.accountId = found.account.id;
    else {
      problems.push(
        found.status === "ambiguous"
          ? `Several accounts are called ${accountText} (#${found.accountIds.join(", #")}): use the id.`
          : `No account ${accountText} (use an id like 42 or @username).`,
      );
      filters.accountId = -1; // show nothing rather than every account's orders
    }
  }
  if (from) {
    const day = parseDay(from);
    if (day) filters.createdFrom = day;
    else problems.push(`“${from}” is not a date (YYYY-MM-DD).`);
  }
  if (to) {
    const day = parseDay(to);
    if (day) filters.createdBefore = new Date(day.getTime() + DAY_MS);
    else problems.push(`“${to}” is not a date (YYYY-MM-DD).`);
  }

  const [lines, page] = await Promise.all([
    listGameLineSlugs(),
    listOrders(filters, { olderThan: cursorParam(params, "older"), newerThan: cursorParam(params, "newer") }),
  ]);
  const kept = { status, line, account: accountText, from, to, mode };

  return (
    <>
      <h1>Orders</h1>
      <SearchForm q="" />
      <form className="filters" method="get" action="/admin/orders" aria-label="Filter orders">
        <label>
          Status
          <select name="status" defaultValue={status}>
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
          <select name="line" defaultValue={line}>
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
          <input name="account" defaultValue={accountText} placeholder="42 or @username" size={14} />
        </label>
        <label>
          Mode
          <select name="mode" defaultValue={mode ?? ""}>
            <option value="">live</option>
            <option value="test">test</option>
          </select>
        </label>
        <label>
          From (UTC)
          <input name="from" type="date" defaultValue={from} />
        </label>
        <label>
          To (UTC, inclusive)
          <input name="to" type="date" defaultValue={to} />
        </label>
        <button type="submit">Filter</button>
        <Link href="/admin/orders">Reset</Link>
      </form>
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
          aria-label="Order public id, numeric id, trxid or player id"
        />
      </label>
      <button type="submit" className="primary">
        Find
      </button>
    </form>
  );
}
