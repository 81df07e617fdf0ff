// Catalog: lines and packs, what they cost, whether they sell, and the code stock of game-key and
// gift-card packs, with the forms that change them.
import { listCatalogWithStock, isStockKind } from "@/lib/catalog/list-catalog-with-stock";
import { requireAdminPage } from "../../_lib/session";
import Link from "next/link";
import { formatUsd } from "../../_lib/format";
import { ActionForm } from "../../_components/action-form";
import {
  importInventoryCodesAction,
  setLineOrderableAction,
  setProductActiveAction,
  setProductPriceAction,
} from "./actions";

export const metadata = { title: "Catalog · Top-up operations" };

function usd(cents: number): string {
  return (cents / 100).toFixed(2);
}

export default async function CatalogPage() {
  await requireAdminPage();
  const lines = await listCatalogWithStock();
  const stockProducts = lines
    .filter((line) => isStockKind(line.kind))
    .flatMap((line) => line.products.map((product) => ({ line, product })));

  return (
    <>
      <h1>Catalog</h1>
      {lines.length === 0 ? (
        <p className="muted">
          No game lines yet: run <code>npm run db:seed</code> for the demo catalog.
        </p>
      ) : null}
      {lines.map((line) => (
        <section key={line.id} className="panel" aria-label={`Line ${line.slug}`}>
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
          <table className="data">
            <thead>
              <tr>
                <th>Catalog id (pid)</th>
                <th>Pack</th>
                <th>State</th>
                <th className="num">Price</th>
                {isStockKind(line.kind) ? <th className="num">In stock</th> : null}
                {isStockKind(line.kind) ? <th className="num">Reserved / delivered</th> : null}
                <th>Change price (future orders)</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {line.products.map((product) => (
                <tr key={product.id} data-catalog-id={product.catalogId}>
                  <td className="mono">{product.catalogId}</td>
                  <td>{product.packName}</td>
                  <td>
                    <span className={`badge ${product.active ? "good" : "bad"}`}>
                      {product.active ? "enabled" : "disabled"}
                    </span>
                  </td>
                  <td className="num" data-testid="price">
                    {formatUsd(product.priceCents)}
                    {product.cheapestCostCents !== null && product.priceCents < product.cheapestCostCents ? (
                      <span
                        className="badge bad"
                        data-testid="below-cost"
                        title={`Every supplier charges more: the cheapest costs ${formatUsd(product.cheapestCostCents)}`}
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
                  <td>
                    <ActionForm
                      action={setProductPriceAction}
                      submitLabel="Set price"
                      confirm={`Change the price of ${product.catalogId} (now ${formatUsd(product.priceCents)}) for new orders? Orders already placed keep their price.`}
                      label={`Price of ${product.catalogId}`}
                    >
                      <input type="hidden" name="productId" value={product.id} />
                      <input
                        name="price"
                        defaultValue={usd(product.priceCents)}
                        inputMode="decimal"
                        size={8}
                        aria-label={`New price of ${product.catalogId} in USD`}
                      />
                    </ActionForm>
                  </td>
                  <td>
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
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}

      {stockProducts.length > 0 ? (
        <section className="panel" aria-label="Add codes">
          <h2>Add game-key and gift-card codes</h2>
          <p className="muted">
            One code per line, or a CSV file whose first column is the code (a header row is skipped). Codes already
            stored, or repeated in the list, are refused; codes are stored encrypted and never shown again. Up to 10,000
            codes and 1 MB per upload.
          </p>
          <ActionForm
            action={importInventoryCodesAction}
            submitLabel="Add codes"
            tone="primary"
            layout="stacked"
            label="Add codes"
            resetOnSuccess
          >
            <div className="row">
              <label>
                Product{" "}
                <select name="productId" required defaultValue="">
                  <option value="" disabled>
                    choose…
                  </option>
                  {stockProducts.map(({ line, product }) => (
                    <option key={product.id} value={product.id}>
                      {product.catalogId} · {line.gameName} · {product.packName} ({product.stock?.available ?? 0} in
                      stock)
                    </option>
                  ))}
                </select>
              </label>
              <label>
                CSV or text file <input type="file" name="file" accept=".csv,.txt,text/csv,text/plain" />
              </label>
            </div>
            <textarea name="codes" placeholder={"XXXX-XXXX-XXXX\nYYYY-YYYY-YYYY"} aria-label="Codes, one per line" />
          </ActionForm>
        </section>
      ) : null}
    </>
  );
}
