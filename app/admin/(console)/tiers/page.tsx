// Price tiers: each tier's accounts and pack prices (each with the price it charges, computed by
// the same SQL function the API prices with), and the owner's forms to create, rename and remove
// tiers and set a pack's price in one. Accounts are put on a tier on their account page or with
// the bot's /tier.
import { listPricedPacks, listPriceTiers } from "@/lib/pricing/sql/list-price-tiers";
import { requireAdminPage } from "../../_lib/session";
import { ActionForm } from "../../_components/action-form";
import { createPriceTierAction } from "./actions";
import { TierPanel } from "./tier-panel";

export const metadata = { title: "Price tiers · Top-up operations" };

export default async function PriceTiersPage() {
  await requireAdminPage();
  const [tiers, packs] = await Promise.all([listPriceTiers(), listPricedPacks()]);
  return (
    <>
      <h1>Price tiers</h1>
      <p className="muted">
        A tier sets, per pack, a fixed price or a percent off the list price (rounded half up to the cent, never below
        $0.01); packs it does not name keep their list price. An account on a tier sees these prices in GET /products
        and is charged them; its test keys too. Changes apply to new orders: placed orders keep their amounts.
      </p>
      <section className="panel" aria-label="New tier">
        <h2>New tier</h2>
        <ActionForm action={createPriceTierAction} submitLabel="Create tier" label="Create tier" resetOnSuccess>
          <input name="name" placeholder="gold" size={20} aria-label="Tier name" />
        </ActionForm>
        <p className="muted small">One word: lower-case letters, digits, dashes and underscores.</p>
      </section>
      {tiers.length === 0 ? <p className="muted">No tiers yet: every account pays list prices.</p> : null}
      {tiers.map((tier) => (
        <TierPanel key={tier.id} tier={tier} packs={packs} />
      ))}
    </>
  );
}
