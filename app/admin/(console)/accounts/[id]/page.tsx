// One account: balance and state, keys (prefixes only) with their IP allowlists, the wallet ledger
// with its running balance, recent orders, and the actions that restrict access. Nothing on this
// page adds money: funding is done in the bot, with its own confirmation step.
import Link from "next/link";
import { readTestBalance } from "@/lib/wallet/test-wallet";
import { notFound } from "next/navigation";
import { describeAccount } from "@/lib/accounts/describe-account";
import { listAccountLedger } from "@/lib/dashboard/list-account-ledger";
import { listOrders } from "@/lib/dashboard/list-orders";
import { listPriceTierNames } from "@/lib/pricing/sql/list-price-tiers";
import { requireAdminPage } from "../../../_lib/session";
import { cursorParam, type PageSearchParams } from "../../../_lib/search-params";
import { AccountStateBadges } from "../account-state";
import { AccountCards, AccountStatePanel } from "./account-summary";
import { AccessActionsPanel } from "./access-actions";
import { ApiKeysPanel, LedgerPanel, RecentOrdersPanel } from "./account-records";

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
  const [ledger, orders, testBalanceCents, tierNames] = await Promise.all([
    listAccountLedger(accountId, { olderThan }),
    listOrders({ accountId }, { limit: 10 }),
    readTestBalance(accountId),
    listPriceTierNames(),
  ]);
  const { account, keys, orderCount, priceTier } = description;
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
      <AccountCards account={account} testBalanceCents={testBalanceCents} orderCount={orderCount} />
      <div className="grid-2">
        <AccountStatePanel
          account={account}
          restricted={restricted}
          priceTier={priceTier}
          tierNames={tierNames}
          name={name}
        />
        <AccessActionsPanel account={account} restricted={restricted} name={name} />
      </div>
      <ApiKeysPanel keys={keys} />
      <RecentOrdersPanel accountId={account.id} orders={orders.orders} orderCount={orderCount} />
      <LedgerPanel accountId={account.id} ledger={ledger} olderThan={olderThan} />
    </>
  );
}
