// One price tier on the tiers page: its pack prices (each with the price it charges and whether
// that is below cost), and the owner's forms to set a pack's price, rename the tier or remove it.
import type { PriceTierView, listPricedPacks } from "@/lib/pricing/sql/list-price-tiers";
import { describeTierRule } from "@/lib/pricing/price-tier-rules";
import { isBelowCost } from "@/lib/pricing/is-below-cost";
import { formatUsd } from "../../_lib/format";
import { ActionForm } from "../../_components/action-form";
import { VersionField } from "../../_components/version-field";
import {
  clearTierPackPriceAction,
  removePriceTierAction,
  renamePriceTierAction,
  setTierPackPriceAction,
} from "./actions";

type Packs = Awaited<ReturnType<typeof listPricedPacks>>;
type TierPrice = PriceTierView["prices"][number];

export function TierPanel({ tier, packs }: { tier: PriceTierView; packs: Packs }) {
  return (
    <section className="panel" aria-label={`Tier ${tier.name}`} data-tier={tier.name}>
      <h2>
        {tier.name}{" "}
        <span className="muted small">{tier.accountCount === 1 ? "1 account" : `${tier.accountCount} accounts`}</span>
      </h2>
      {tier.prices.length === 0 ? <p className="muted">Every pack at its list price.</p> : <TierPrices tier={tier} />}
      <h3>Set a pack&apos;s price</h3>
      <SetPackPriceForm tier={tier} packs={packs} />
      <div className="row">
        <ActionForm action={renamePriceTierAction} submitLabel="Rename" label={`Rename ${tier.name}`}>
          <input type="hidden" name="tierId" value={tier.id} />
          <VersionField updatedAt={tier.updatedAt} />
          <input name="name" defaultValue={tier.name} size={20} aria-label="New name" />
        </ActionForm>
        <ActionForm
          action={removePriceTierAction}
          submitLabel="Remove tier"
          tone="danger"
          confirm={`Remove ${tier.name}? Its ${tier.accountCount} account(s) pay list prices on new orders; placed orders keep their amounts.`}
          label={`Remove ${tier.name}`}
        >
          <input type="hidden" name="tierId" value={tier.id} />
        </ActionForm>
      </div>
    </section>
  );
}

function TierPrices({ tier }: { tier: PriceTierView }) {
  return (
    <table className="data" aria-label={`Prices of ${tier.name}`}>
      <thead>
        <tr>
          <th>Pack</th>
          <th className="num">List price</th>
          <th>Rule</th>
          <th className="num">Charged</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {tier.prices.map((price) => (
          <TierPriceRow key={price.catalogId} tier={tier} price={price} />
        ))}
      </tbody>
    </table>
  );
}

function TierPriceRow({ tier, price }: { tier: PriceTierView; price: TierPrice }) {
  return (
    <tr data-catalog-id={price.catalogId}>
      <td>
        <span className="mono">{price.catalogId}</span> {price.packName}
      </td>
      <td className="num">{formatUsd(price.listPriceCents)}</td>
      <td>{describeTierRule(price)}</td>
      <td className="num" data-testid="charged">
        {formatUsd(price.tierPriceCents)}
        {isBelowCost(price.tierPriceCents, price.cheapestCostCents) ? (
          <span
            className="badge bad"
            data-testid="below-cost"
            title={`Every live supplier charges more: the cheapest costs ${formatUsd(price.cheapestCostCents!)}`}
          >
            below cost
          </span>
        ) : null}
      </td>
      <td>
        <ActionForm
          action={clearTierPackPriceAction}
          submitLabel="List price"
          confirm={`Charge ${tier.name}'s accounts the list price for ${price.catalogId} on new orders?`}
          label={`List price for ${price.catalogId} in ${tier.name}`}
        >
          <input type="hidden" name="tierId" value={tier.id} />
          <VersionField updatedAt={tier.updatedAt} />
          <input type="hidden" name="catalogId" value={price.catalogId} />
        </ActionForm>
      </td>
    </tr>
  );
}

function SetPackPriceForm({ tier, packs }: { tier: PriceTierView; packs: Packs }) {
  return (
    <ActionForm
      action={setTierPackPriceAction}
      submitLabel="Set price"
      confirm={`Charge ${tier.name}'s accounts this price for the pack on new orders? Placed orders keep their amounts.`}
      label={`Set a pack price in ${tier.name}`}
    >
      <input type="hidden" name="tierId" value={tier.id} />
      <VersionField updatedAt={tier.updatedAt} />
      <select name="catalogId" aria-label="Pack">
        {packs.map((pack) => (
          <option key={pack.catalogId} value={pack.catalogId}>
            {pack.catalogId} {pack.packName} ({formatUsd(pack.listPriceCents)}
            {pack.cheapestCostCents !== null ? `, cost from ${formatUsd(pack.cheapestCostCents)}` : ""})
          </option>
        ))}
      </select>
      <select name="kind" aria-label="Rule" defaultValue="percent">
        <option value="percent">percent off</option>
        <option value="price">fixed price (USD)</option>
      </select>
      <input name="value" inputMode="decimal" size={8} aria-label="Value" placeholder="10" />
      <label title="A price below the pack's cheapest live supplier cost is refused without this">
        <input type="checkbox" name="belowCost" value="yes" /> sell below cost
      </label>
    </ActionForm>
  );
}
