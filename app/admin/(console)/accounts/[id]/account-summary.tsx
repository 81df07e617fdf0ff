// An account at a glance: its balances and counts as cards, and the state that decides what its API
// calls answer, with the owner's choice of its price tier.
import Link from "next/link";
import type { AccountRecord } from "@/lib/accounts/account-record";
import { formatTime, formatUsd } from "../../../_lib/format";
import { GatedActionForm } from "../../../_components/gated-action-form";
import { setAccountTierAction } from "./actions";

export function AccountCards({
  account,
  testBalanceCents,
  orderCount,
}: {
  account: AccountRecord;
  testBalanceCents: number;
  orderCount: number;
}) {
  return (
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
  );
}

export function AccountStatePanel({
  account,
  restricted,
  priceTier,
  tierNames,
  name,
}: {
  account: AccountRecord;
  restricted: boolean;
  priceTier: string | null;
  tierNames: string[];
  /** How the confirmations name the account. */
  name: string;
}) {
  return (
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
          <tr>
            <th>Price tier</th>
            <td data-testid="price-tier">{priceTier ?? "none (list prices)"}</td>
          </tr>
        </tbody>
      </table>
      <p className="muted small">
        To add or remove money, use the bot&apos;s wallet commands: the dashboard cannot move money.
      </p>
      <PriceTierForm account={account} priceTier={priceTier} tierNames={tierNames} name={name} />
    </section>
  );
}

/** The owner's choice of the prices the account pays. */
function PriceTierForm({
  account,
  priceTier,
  tierNames,
  name,
}: {
  account: AccountRecord;
  priceTier: string | null;
  tierNames: string[];
  name: string;
}) {
  return (
    <GatedActionForm
      role="owner"
      action={setAccountTierAction}
      submitLabel="Set price tier"
      confirm={`Change the prices ${name} pays? New orders (its test keys' too) are charged the chosen tier's prices; placed orders keep their amounts.`}
      label="Set price tier"
    >
      <input type="hidden" name="accountId" value={account.id} />
      <select name="tier" defaultValue={priceTier ?? ""} aria-label="Price tier">
        <option value="">none (list prices)</option>
        {tierNames.map((tier) => (
          <option key={tier} value={tier}>
            {tier}
          </option>
        ))}
      </select>
    </GatedActionForm>
  );
}
