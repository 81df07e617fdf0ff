// One account: balance and state, keys (prefixes only) with their IP allowlists, the wallet ledger
// with its running balance, recent orders, and the actions that restrict access. Nothing on this
// page adds money: funding is done in the bot, with its own confirmation step.
import Link from "next/link";
import { readTestBalance } from "@/lib/wallet/test-wallet";
import { notFound } from "next/navigation";
import { describeAccount } from "@/lib/accounts/describe-account";
import { listAccountLedger } from "@/lib/dashboard/list-account-ledger";
import { listOrders } from "@/lib/dashboard/list-orders";
import { requireAdminPage } from "../../../_lib/session";
import { cursorParam, queryString, type PageSearchParams } from "../../../_lib/search-params";
import { formatSignedUsd, formatTime, formatUsd } from "../../../_lib/format";
import { GatedActionForm } from "../../../_components/gated-action-form";
import { OrderTable } from "../../../_components/order-table";
import { AccountStateBadges } from "../account-state";
import {
  banAccountAction,
  blockApiAction,
  liftRestrictionAction,
  restrictAccountAction,
  unbanAccountAction,
  unblockApiAction,
} from "./actions";

export const metadata = { title: "Account · Top-up operations" };

export default async function AccountPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: PageSearchParams;
}) {
  const { id } = await params;
  await requireAdminPage();
  const accountId = /^\d{1,10}$/.test(id) && Number(id) <= 2_147_483_647 ? Number(id) : undefined;
  const description = accountId ? await describeAccount(accountId, 0) : undefined;
  if (!accountId || !description) notFound();
  const query = await searchParams;
  const olderThan = cursorParam(query, "older");
  const [ledger, orders, testBalanceCents] = await Promise.all([
    listAccountLedger(accountId, { olderThan }),
    listOrders({ accountId }, { limit: 10 }),
    readTestBalance(accountId),
  ]);
  const { account, keys, orderCount } = description;
  const now = new Date();
  const restricted = account.restrictedUntil !== null && account.restrictedUntil > now;
  const name = account.telegramUsername ? `@${account.telegramUsername}` : `#${account.id}`;

  return (
    <>
      <p className="muted">
        <Link href="/admin/accounts">Accounts</Link> / {account.id}
      </p>
      <h1>
        Account #{account.id} {account.telegramUsername ? `@${account.telegramUsername}` : ""}{" "}
        <AccountStateBadges account={account} now={now} />
      </h1>
      <div className="cards">
        <div className="card">
          <div className="label">Balance</div>
          <div className="value" data-testid="balance">
            {formatUsd(account.balanceCents)}
          </div>
        </div>
        <div className="card">
          <div className="label">
            Test balance (<Link href={`/admin/orders?account=${account.id}&mode=test`}>test orders</Link>)
          </div>
          <div className="value" data-testid="test-balance">
            {formatUsd(testBalanceCents)}
          </div>
        </div>
        <div className="card">
          <div className="label">Credited in total</div>
          <div className="value">{formatUsd(account.totalCreditedCents)}</div>
        </div>
        <div className="card">
          <div className="label">Orders</div>
          <div className="value">{orderCount}</div>
        </div>
        <div className="card">
          <div className="label">Registered</div>
          <div className="value small">{formatTime(account.createdAt)}</div>
        </div>
      </div>

      <div className="grid-2">
        <section className="panel" aria-label="State">
          <h2>State</h2>
          <table className="kv">
            <tbody>
              <tr>
                <th>Telegram</th>
                <td className="mono">
                  {account.telegramId ?? "—"} {account.displayName ? `(${account.displayName})` : ""}
                </td>
              </tr>
              <tr>
                <th>Banned</th>
                <td>
                  {account.bannedAt
                    ? `since ${formatTime(account.bannedAt)}${account.banReason ? `: ${account.banReason}` : ""}`
                    : "no"}
                </td>
              </tr>
              <tr>
                <th>Restricted</th>
                <td>
                  {restricted
                    ? `until ${formatTime(account.restrictedUntil)}${account.restrictReason ? `: ${account.restrictReason}` : ""}`
                    : "no"}
                </td>
              </tr>
              <tr>
                <th>API access (holder)</th>
                <td>{account.apiEnabled ? "on" : "off"}</td>
              </tr>
              <tr>
                <th>API blocked by admin</th>
                <td>{account.apiDisabledByAdmin ? "yes" : "no"}</td>
              </tr>
            </tbody>
          </table>
          <p className="muted small">
            To add or remove money, use the bot&apos;s wallet commands: the dashboard cannot move money.
          </p>
        </section>

        <section className="panel" aria-label="Access actions">
          <h2>Access</h2>
          {account.bannedAt ? (
            <GatedActionForm
              role="operator"
              action={unbanAccountAction}
              submitLabel="Unban"
              confirm={`Lift the ban on ${name}? Its API keys work again.`}
              label="Unban"
            >
              <input type="hidden" name="accountId" value={account.id} />
            </GatedActionForm>
          ) : (
            <GatedActionForm
              role="operator"
              action={banAccountAction}
              submitLabel="Ban"
              tone="danger"
              confirm={`Ban ${name}? Every API call answers ACCOUNT_BANNED until unbanned.`}
              label="Ban"
            >
              <input type="hidden" name="accountId" value={account.id} />
              <input name="reason" placeholder="Reason (kept in the log)" maxLength={200} />
            </GatedActionForm>
          )}
          <GatedActionForm
            role="operator"
            action={restrictAccountAction}
            submitLabel="Restrict"
            confirm={`Restrict ${name}? API calls answer ACCOUNT_RESTRICTED until the time ends.`}
            label="Restrict"
          >
            <input type="hidden" name="accountId" value={account.id} />
            <input
              name="hours"
              type="number"
              min="0.25"
              max="720"
              step="0.25"
              defaultValue="24"
              aria-label="Hours"
              className="hours"
            />
            <span className="muted">hours</span>
            <input name="reason" placeholder="Reason" maxLength={200} />
          </GatedActionForm>
          {restricted ? (
            <GatedActionForm
              role="operator"
              action={liftRestrictionAction}
              submitLabel="Lift restriction"
              confirm={`Lift the restriction on ${name} now?`}
              label="Lift restriction"
            >
              <input type="hidden" name="accountId" value={account.id} />
            </GatedActionForm>
          ) : null}
          {account.apiDisabledByAdmin ? (
            <GatedActionForm
              role="operator"
              action={unblockApiAction}
              submitLabel="Unblock API access"
              confirm={`Unblock API access for ${name}?`}
              label="Unblock API access"
            >
              <input type="hidden" name="accountId" value={account.id} />
            </GatedActionForm>
          ) : (
            <GatedActionForm
              role="operator"
              action={blockApiAction}
              submitLabel="Block API access"
              tone="danger"
              confirm={`Block API access for ${name}? Calls answer API_DISABLED_BY_ADMIN; the holder cannot undo it.`}
              label="Block API access"
            >
              <input type="hidden" name="accountId" value={account.id} />
            </GatedActionForm>
          )}
        </section>
      </div>

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

      <section className="panel" aria-label="Recent orders">
        <h2>Recent orders</h2>
        <OrderTable orders={orders.orders} />
        {orderCount > orders.orders.length ? (
          <p>
            <Link href={`/admin/orders${queryString({ account: String(account.id) })}`}>All {orderCount} orders →</Link>
          </p>
        ) : null}
      </section>

      <section className="panel" aria-label="Ledger">
        <h2>
          Ledger{" "}
          <a href={`/admin/accounts/${account.id}/ledger.csv`} className="muted" download>
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
                <tr key={entry.id}>
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
              ))}
            </tbody>
          </table>
        )}
        <nav className="pager" aria-label="Ledger pages">
          {olderThan !== undefined ? <Link href={`/admin/accounts/${account.id}`}>← Newest</Link> : null}
          {ledger.olderCursor !== undefined ? (
            <Link href={`/admin/accounts/${account.id}${queryString({ older: ledger.olderCursor })}`}>Older →</Link>
          ) : null}
        </nav>
      </section>
    </>
  );
}
