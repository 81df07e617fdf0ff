// One game line of the catalog: its head (open or close it), its edit form, its packs with their
// prices and code stock and the forms that change them, and the form for a new pack.
import Link from "next/link";
import {
  isBelowStockAlert,
  isStockKind,
  type CatalogLineWithStock,
  type CatalogProductWithStock,
} from "@/lib/catalog/list-catalog-with-stock";
import { isBelowCost } from "@/lib/pricing/is-below-cost";
import { formatUsd } from "../../_lib/format";
import { ActionForm } from "../../_components/action-form";
import { VersionField } from "../../_components/version-field";
import {
  changeLinePricesAction,
  saveGameLineAction,
  savePackAction,
  setLineOrderableAction,
  setLineRefundWindowAction,
  setProductActiveAction,
  setProductPriceAction,
} from "./actions";
import { LineFormFields, PackFormFields } from "./catalog-forms";

function usd(cents: number): string {
  return (cents / 100).toFixed(2);
}

export function CatalogLinePanel({ line }: { line: CatalogLineWithStock }) {
  return (
    <section className="panel" aria-label={`Line ${line.slug}`}>
      <LineHead line={line} />
      <details>
        <summary>Edit line {line.slug}</summary>
        <ActionForm
          action={saveGameLineAction}
          submitLabel="Save line"
          layout="stacked"
          confirm={`Save ${line.slug}? Clients see the change in GET /services and GET /products at once; unticking "Takes orders" closes the line.`}
          label={`Edit line ${line.slug}`}
        >
          <input type="hidden" name="lineId" value={line.id} />
          <VersionField updatedAt={line.updatedAt} />
          <LineFormFields line={line} />
        </ActionForm>
      </details>
      <ActionForm
        action={setLineRefundWindowAction}
        submitLabel="Set refund window"
        confirm={`Set how long after completion holders may ask for the refund of a ${line.slug} order? Empty: no refund requests.`}
        label={`Refund window of ${line.slug}`}
      >
        <input type="hidden" name="lineId" value={line.id} />
        <label>
          Refund requests for{" "}
          <input
            name="refundWindowHours"
            inputMode="numeric"
            size={5}
            defaultValue={line.refundWindowHours ?? ""}
            placeholder="none"
          />{" "}
          h after completion
        </label>
      </ActionForm>
      {line.products.length > 0 ? (
        <ActionForm
          action={changeLinePricesAction}
          submitLabel="Change all prices"
          confirm={`Change the price of every pack of ${line.slug} (${line.products.length}) by this percentage, each rounded to the nearest cent? Orders already placed keep their price.`}
          label={`Change prices of ${line.slug}`}
        >
          <input type="hidden" name="lineId" value={line.id} />
          <label>
            By percent <input name="percent" inputMode="decimal" size={6} placeholder="-10 or 5.5" required />
          </label>
        </ActionForm>
      ) : null}
      <PackTable line={line} />
      <details>
        <summary>New pack on {line.slug}</summary>
        <ActionForm
          action={savePackAction}
          submitLabel="Create pack"
          tone="primary"
          layout="stacked"
          label={`New pack on ${line.slug}`}
        >
          <input type="hidden" name="lineId" value={line.id} />
          <PackFormFields line={line} />
        </ActionForm>
      </details>
    </section>
  );
}

function LineHead({ line }: { line: CatalogLineWithStock }) {
  return (
    <div className="line-head">
      <div>
        <h2>
          {line.gameName}{" "}
          <span className="mono muted">
            ({line.slug}, {line.code})
          </span>{" "}
          <span className={`badge ${line.orderable ? "good" : "bad"}`}>
            {line.orderable ? "taking orders" : "closed"}
          </span>
          {!line.available ? <span className="badge"> not listed</span> : null}
        </h2>
        <p className="muted">
          {line.productName} · {line.kind} ·{" "}
          {isStockKind(line.kind) ? (
            "delivered from code stock"
          ) : (
            <>
              suppliers per pack: <Link href="/admin/suppliers">Suppliers</Link>
            </>
          )}
        </p>
      </div>
      <ActionForm
        action={setLineOrderableAction}
        submitLabel={line.orderable ? "Close line" : "Open line"}
        tone={line.orderable ? "danger" : "primary"}
        confirm={
          line.orderable
            ? `Close ${line.slug}? New orders answer GAME DISABLED; orders in flight finish.`
            : `Open ${line.slug} for new orders?`
        }
        label={`${line.orderable ? "Close" : "Open"} line ${line.slug}`}
      >
        <input type="hidden" name="lineId" value={line.id} />
        <input type="hidden" name="orderable" value={String(!line.orderable)} />
      </ActionForm>
    </div>
  );
}

function PackTable({ line }: { line: CatalogLineWithStock }) {
  return (
    <table className="data">
      <thead>
        <tr>
          <th>Catalog id (pid)</th>
          <th>Pack</th>
          <th>State</th>
          <th className="num">Price</th>
          {isStockKind(line.kind) ? <th className="num">In stock</th> : null}
          {isStockKind(line.kind) ? <th className="num">Reserved / delivered</th> : null}
          {isStockKind(line.kind) ? <th className="num">Alert below</th> : <th>Supplier SKU</th>}
          <th>Change price (future orders)</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {line.products.map((product) => (
          <PackRow key={product.id} line={line} product={product} />
        ))}
      </tbody>
    </table>
  );
}

function PackRow({ line, product }: { line: CatalogLineWithStock; product: CatalogProductWithStock }) {
  return (
    <tr data-catalog-id={product.catalogId}>
      <td className="mono">{product.catalogId}</td>
      <td>{product.packName}</td>
      <td>
        <span className={`badge ${product.active ? "good" : "bad"}`}>{product.active ? "enabled" : "disabled"}</span>
        {line.kind === "topup" && product.supplierCount === 0 ? (
          <span
            className="badge bad"
            data-testid="no-supplier"
            title="No supplier carries this pack: its orders cannot be fulfilled. Add an offer on the suppliers page."
          >
            no supplier
          </span>
        ) : null}
      </td>
      <td className="num" data-testid="price">
        {formatUsd(product.priceCents)}
        {isBelowCost(product.priceCents, product.cheapestCostCents) ? (
          <span
            className="badge bad"
            data-testid="below-cost"
            title={`Every supplier charges more: the cheapest costs ${formatUsd(product.cheapestCostCents!)}`}
          >
            below cost
          </span>
        ) : null}
      </td>
      {product.stock ? (
        <td className="num" data-testid="stock-available">
          <strong>{product.stock.available}</strong>
        </td>
      ) : null}
      {product.stock ? (
        <td className="num">
          {product.stock.reserved} / {product.stock.delivered}
        </td>
      ) : null}
      {product.stock ? (
        <td className="num" data-testid="stock-alert-below">
          {product.stockAlertBelow ?? "—"}
          {isBelowStockAlert(product) ? <span className="badge bad">low</span> : null}
        </td>
      ) : (
        <td className="mono">{product.supplierSku ?? "—"}</td>
      )}
      <td>
        <PriceForm product={product} />
      </td>
      <td>
        <PackActions line={line} product={product} />
      </td>
    </tr>
  );
}

/** Enabling or disabling the pack, and its edit form. */
function PackActions({ line, product }: { line: CatalogLineWithStock; product: CatalogProductWithStock }) {
  return (
    <>
      <ActionForm
        action={setProductActiveAction}
        submitLabel={product.active ? "Disable" : "Enable"}
        confirm={
          product.active
            ? `Disable ${product.catalogId}? It leaves the catalog and new orders for it are refused.`
            : `Enable ${product.catalogId}?`
        }
        label={`${product.active ? "Disable" : "Enable"} ${product.catalogId}`}
      >
        <input type="hidden" name="productId" value={product.id} />
        <input type="hidden" name="active" value={String(!product.active)} />
      </ActionForm>
      <details>
        <summary>Edit</summary>
        <ActionForm
          action={savePackAction}
          submitLabel="Save pack"
          layout="stacked"
          confirm={`Save ${product.catalogId}? A new price applies to new orders only.`}
          label={`Edit ${product.catalogId}`}
        >
          <input type="hidden" name="productId" value={product.id} />
          <VersionField updatedAt={product.updatedAt} />
          <PackFormFields line={line} product={product} />
        </ActionForm>
      </details>
    </>
  );
}

function PriceForm({ product }: { product: CatalogProductWithStock }) {
  return (
    <ActionForm
      action={setProductPriceAction}
      submitLabel="Set price"
      confirm={`Change the price of ${product.catalogId} (now ${formatUsd(product.priceCents)}) for new orders? Orders already placed keep their price.`}
      label={`Price of ${product.catalogId}`}
    >
      <input type="hidden" name="productId" value={product.id} />
      <VersionField updatedAt={product.updatedAt} />
      <input
        name="price"
        defaultValue={usd(product.priceCents)}
        inputMode="decimal"
        size={8}
        aria-label={`New price of ${product.catalogId} in USD`}
      />
    </ActionForm>
  );
}
