// Suppliers: each account's state and last hour (from the orders' attempt events), pause and
// resume, the accounts' settings, and which suppliers carry each top-up pack at what cost.
import { readSupplierHealth, type SupplierHealth } from "@/lib/suppliers/sql/read-supplier-health";
import { listPackOffers, listSupplierAccounts, type PackOffers } from "@/lib/suppliers/manage-suppliers";
import { requireAdminPage } from "../../_lib/session";
import { formatPercent, formatTime, formatUsd } from "../../_lib/format";
import { GatedActionForm } from "../../_components/gated-action-form";
import { removeOfferAction, saveOfferAction, setSupplierPausedAction } from "./actions";
import { SupplierAccountForms } from "./supplier-account-forms";

export const metadata = { title: "Suppliers · Top-up operations" };

function stateOf(supplier: { pausedAt: Date | null; circuitOpenUntil: Date | null }, now: Date) {
  if (supplier.pausedAt) return { label: `paused since ${formatTime(supplier.pausedAt)}`, tone: "bad" };
  if (supplier.circuitOpenUntil && supplier.circuitOpenUntil > now)
    return { label: `circuit open until ${formatTime(supplier.circuitOpenUntil)}`, tone: "bad" };
  if (supplier.circuitOpenUntil) return { label: "circuit open, probing", tone: "bad" };
  return { label: "taking orders", tone: "good" };
}

export default async function SuppliersPage() {
  await requireAdminPage();
  const now = new Date();
  const [health, packs, accounts] = await Promise.all([
    readSupplierHealth(now),
    listPackOffers(),
    listSupplierAccounts(),
  ]);
  const names = health.map((supplier) => supplier.name);
  return (
    <>
      <h1>Suppliers</h1>
      <p className="muted">
        A top-up goes to its pack&apos;s suppliers by priority. A supplier&apos;s own refusals move the order to the
        next one; the customer&apos;s (player not found) cancel and refund it; an unknown outcome is asked about until
        it is known. Repeated failures open a supplier&apos;s circuit: orders skip it, then one probes it.
      </p>
      <HealthSection health={health} now={now} />
      <OffersSection packs={packs} names={names} />
      <SupplierAccountForms accounts={accounts} />
    </>
  );
}

function HealthSection({ health, now }: { health: SupplierHealth[]; now: Date }) {
  return (
    <section className="panel" aria-label="Supplier health">
      <h2>Health, last hour</h2>
      <table className="data">
        <thead>
          <tr>
            <th>Supplier</th>
            <th>State</th>
            <th className="num">Attempts</th>
            <th className="num">Success</th>
            <th className="num">p50 / p95</th>
            <th className="num">Customer / supplier refusals</th>
            <th className="num">Unknown / pending / not received</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {health.map((supplier) => {
            const state = stateOf(supplier, now);
            return (
              <tr key={supplier.id} data-supplier={supplier.name}>
                <td>
                  <strong>{supplier.name}</strong> <span className="muted">{supplier.kind}</span>
                </td>
                <td>
                  <span className={`badge ${state.tone}`}>{state.label}</span>
                </td>
                <td className="num">{supplier.attempts}</td>
                <td className="num">{formatPercent(supplier.successRate)}</td>
                <td className="num">
                  {supplier.p50LatencyMs ?? "—"} / {supplier.p95LatencyMs ?? "—"} ms
                </td>
                <td className="num">
                  {supplier.customerRefusals} / {supplier.supplierRefusals}
                </td>
                <td className="num">
                  {supplier.unknown} / {supplier.pending} / {supplier.notReceived}
                </td>
                <td>
                  <GatedActionForm
                    role="owner"
                    action={setSupplierPausedAction}
                    submitLabel={supplier.pausedAt ? "Resume" : "Pause"}
                    tone={supplier.pausedAt ? "primary" : "danger"}
                    confirm={
                      supplier.pausedAt
                        ? `Resume ${supplier.name}? Orders are routed to it again.`
                        : `Pause ${supplier.name}? New orders skip it; orders already with it are still asked about.`
                    }
                    label={`${supplier.pausedAt ? "Resume" : "Pause"} ${supplier.name}`}
                  >
                    <input type="hidden" name="supplierId" value={supplier.id} />
                    <input type="hidden" name="paused" value={String(!supplier.pausedAt)} />
                  </GatedActionForm>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function OffersSection({ packs, names }: { packs: PackOffers[]; names: string[] }) {
  return (
    <section className="panel" aria-label="Offers">
      <h2>Who carries each pack</h2>
      <table className="data">
        <thead>
          <tr>
            <th>Pack</th>
            <th className="num">Price</th>
            <th>Suppliers (priority · SKU · cost)</th>
          </tr>
        </thead>
        <tbody>
          {packs.map((pack) => (
            <tr key={pack.catalogId} data-catalog-id={pack.catalogId}>
              <td>
                <span className="mono">{pack.catalogId}</span> {pack.packName}
              </td>
              <td className="num">{formatUsd(pack.priceCents)}</td>
              <td>
                {pack.offers.length === 0 ? <span className="badge bad">no supplier</span> : null}
                {pack.offers.map((offer) => (
                  <div key={offer.id} className="offer">
                    {offer.priority} · {offer.supplier} · <span className="mono">{offer.sku}</span> ·{" "}
                    {formatUsd(offer.costCents)}
                    {offer.costCents > pack.priceCents ? (
                      <span className="badge bad"> above the price</span>
                    ) : null}{" "}
                    <GatedActionForm
                      role="owner"
                      action={removeOfferAction}
                      submitLabel="Remove"
                      confirm={`Stop sending ${pack.catalogId} to ${offer.supplier}?`}
                      label={`Remove ${offer.supplier} from ${pack.catalogId}`}
                    >
                      <input type="hidden" name="offerId" value={offer.id} />
                    </GatedActionForm>
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Add or change an offer</h3>
      <GatedActionForm
        role="owner"
        action={saveOfferAction}
        submitLabel="Save offer"
        label="Save offer"
        layout="stacked"
      >
        <label>
          Pack (catalog id) <input name="catalogId" placeholder="SVCBR60" size={12} />
        </label>
        <label>
          Supplier
          <select name="supplier">
            {names.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          SKU at the supplier <input name="sku" size={14} />
        </label>
        <label>
          Cost (USD) <input name="cost" inputMode="decimal" size={8} defaultValue="0" />
        </label>
        <label>
          Priority (1 first) <input name="priority" inputMode="numeric" size={4} defaultValue="1" />
        </label>
      </GatedActionForm>
    </section>
  );
}
