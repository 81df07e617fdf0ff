// What an account has and did: its active keys with their IP allowlists, its recent orders, and its
// wallet ledger with the running balance, a page at a time.
import Link from "next/link";
import type { ApiKeySummary } from "@/lib/accounts/list-api-keys";
import type { AccountLedgerLine } from "@/lib/dashboard/list-account-ledger";
import type { OrderListItem } from "@/lib/dashboard/order-list-item";
import { queryString } from "../../../_lib/search-params";
import { formatSignedUsd, formatTime, formatUsd } from "../../../_lib/format";
import { OrderTable } from "../../../_components/order-table";

export function ApiKeysPanel({ keys }: { keys: ApiKeySummary[] }) {
  return (
    <section className="panel" aria-label="API keys">
      <h2>API keys ({keys.length} active)</h2>
      {keys.length === 0 ? (
        <p className="muted">No active keys.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th>Prefix</th>
              <th>Name</th>
              <th>Created</th>
              <th>Last used</th>
              <th>IP allowlist</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id}>
                <td className="mono">{key.prefix}…</td>
                <td>{key.name ?? "—"}</td>
                <td>{formatTime(key.createdAt)}</td>
                <td>{formatTime(key.lastUsedAt)}</td>
                <td className="mono wrap">
                  {key.cidrs.length
                    ? key.cidrs.join(", ")
                    : key.requireIpAllowlist
                      ? "required, empty (calls refused)"
                      : "any address"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function RecentOrdersPanel({
  accountId,
  orders,
  orderCount,
}: {
  accountId: number;
  orders: OrderListItem[];
  orderCount: number;
}) {
  return (
    <section className="panel" aria-label="Recent orders">
      <h2>Recent orders</h2>
      <OrderTable orders={orders} />
      {orderCount > orders.length ? (
        <p>
          <Link href={`/admin/orders${queryString({ account: String(accountId) })}`}>All {orderCount} orders →</Link>
        </p>
      ) : null}
    </section>
  );
}

export function LedgerPanel({
  accountId,
  ledger,
  olderThan,
}: {
  accountId: number;
  ledger: { entries: AccountLedgerLine[]; olderCursor?: number };
  /** The page's cursor: undefined on the newest page. */
  olderThan: number | undefined;
}) {
  return (
    <section className="panel" aria-label="Ledger">
      <h2>
        Ledger{" "}
        <a href={`/admin/accounts/${accountId}/ledger.csv`} className="muted" download>
          Download CSV
        </a>
      </h2>
      {ledger.entries.length === 0 ? (
        <p className="muted">No ledger entries.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Kind</th>
              <th className="num">Amount</th>
              <th className="num">Balance after</th>
              <th>Order</th>
              <th>By</th>
              <th>Reason</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {ledger.entries.map((entry) => (
              <LedgerRow key={entry.id} entry={entry} />
            ))}
          </tbody>
        </table>
      )}
      <nav className="pager" aria-label="Ledger pages">
        {olderThan !== undefined ? <Link href={`/admin/accounts/${accountId}`}>← Newest</Link> : null}
        {ledger.olderCursor !== undefined ? (
          <Link href={`/admin/accounts/${accountId}${queryString({ older: ledger.olderCursor })}`}>Older →</Link>
        ) : null}
      </nav>
    </section>
  );
}

function LedgerRow({ entry }: { entry: AccountLedgerLine }) {
  return (
    <tr>
      <td className="num">{entry.id}</td>
      <td>{entry.kind}</td>
      <td className="num">{formatSignedUsd(entry.amountCents)}</td>
      <td className="num">
        {formatUsd(entry.balanceAfterCents)}
        {entry.continuous ? null : (
          <span className="badge bad" title="previous balance + amount differs">
            {" "}
            gap
          </span>
        )}
      </td>
      <td>
        {entry.orderId ? (
          <Link href={`/admin/orders/${entry.orderId}`} className="mono">
            {entry.orderPublicId}
          </Link>
        ) : (
          "—"
        )}
      </td>
      <td className="mono">{entry.actor}</td>
      <td className="wrap">{entry.reason ?? ""}</td>
      <td>{formatTime(entry.createdAt)}</td>
    </tr>
  );
}
