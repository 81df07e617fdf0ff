// The upload of game-key and gift-card codes into a pack's stock.
import type { CatalogLineWithStock, CatalogProductWithStock } from "@/lib/catalog/list-catalog-with-stock";
import { ActionForm } from "../../_components/action-form";
import { importInventoryCodesAction } from "./actions";

export function AddCodesPanel({
  stockProducts,
}: {
  /** The packs delivered from code stock, with their lines. */
  stockProducts: { line: CatalogLineWithStock; product: CatalogProductWithStock }[];
}) {
  return (
    <section className="panel" aria-label="Add codes">
      <h2>Add game-key and gift-card codes</h2>
      <p className="muted">
        One code per line, or a CSV file whose first column is the code (a header row is skipped). Codes already stored,
        or repeated in the list, are refused; codes are stored encrypted and never shown again. Up to 10,000 codes and 1
        MB per upload.
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
                  {product.catalogId} · {line.gameName} · {product.packName} ({product.stock?.available ?? 0} in stock)
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
  );
}
