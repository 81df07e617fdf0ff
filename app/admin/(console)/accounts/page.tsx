// Accounts: newest first, searchable by id, Telegram id, @username or name.
import Link from "next/link";
import { listAccounts } from "@/lib/dashboard/list-accounts";
import { requireAdminPage } from "../../_lib/session";
import { cursorParam, queryString, single, type PageSearchParams } from "../../_lib/search-params";
import { formatTime, formatUsd } from "../../_lib/format";
import { DataTable } from "../../_components/data-table";
import { AccountStateBadges } from "./account-state";

export const metadata = { title: "Accounts · Top-up operations" };

export default async function AccountsPage({ searchParams }: { searchParams: PageSearchParams }) {
  await requireAdminPage();
  const params = await searchParams;
  const query = single(params, "q");
  const page = await listAccounts({ query, olderThan: cursorParam(params, "older") });
  const now = new Date();
  return (
    <>
      <h1>Accounts</h1>
      <form className="filters" method="get" action="/admin/accounts" role="search" aria-label="Find an account">
        <label>
          Find an account
          <input type="search" name="q" defaultValue={query} placeholder="id, Telegram id, @username or name" />
        </label>
        <button type="submit" className="primary">
          Find
        </button>
        {query ? <Link href="/admin/accounts">Clear</Link> : null}
      </form>
      <DataTable
        label="Accounts"
        columns={[
          { label: "#", num: true },
          "Holder",
          "Telegram id",
          "State",
          { label: "Balance", num: true },
          { label: "Keys", num: true },
          { label: "Orders", num: true },
          "Registered",
        ]}
        rows={page.accounts}
        empty="No accounts."
      >
        {(account) => (
          <tr key={account.id}>
            <td className="num">{account.id}</td>
            <td>
              <Link href={`/admin/accounts/${account.id}`} prefetch={false}>
                {account.telegramUsername ? `@${account.telegramUsername}` : `#${account.id}`}
              </Link>
              {account.displayName ? <span className="muted"> {account.displayName}</span> : null}
            </td>
            <td className="mono">{account.telegramId ?? "—"}</td>
            <td>
              <AccountStateBadges account={account} now={now} />
            </td>
            <td className="num">{formatUsd(account.balanceCents)}</td>
            <td className="num">{account.activeKeys}</td>
            <td className="num">{account.orderCount}</td>
            <td>{formatTime(account.createdAt)}</td>
          </tr>
        )}
      </DataTable>
      <nav className="pager" aria-label="Pages">
        {cursorParam(params, "older") !== undefined ? (
          <Link href={`/admin/accounts${queryString({ q: query })}`}>← Newest</Link>
        ) : null}
        {page.olderCursor !== undefined ? (
          <Link href={`/admin/accounts${queryString({ q: query, older: page.olderCursor })}`}>Older →</Link>
        ) : null}
      </nav>
    </>
  );
}
