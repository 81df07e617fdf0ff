// Catalog: lines and packs, what they cost, whether they sell, and the code stock of game-key and
// gift-card packs, with the forms that create and change them; the price list's import and export.
import { isStockKind, listCatalogWithStock } from "@/lib/catalog/list-catalog-with-stock";
import { requireAdminPage } from "../../_lib/session";
import Link from "next/link";
import { ActionForm } from "../../_components/action-form";
import { saveGameLineAction } from "./actions";
import { LineFormFields } from "./catalog-forms";
import { CatalogLinePanel } from "./catalog-line";
import { AddCodesPanel } from "./add-codes-panel";

export const metadata = { title: "Catalog · Top-up operations" };

export default async function CatalogPage() {
  await requireAdminPage();
  const lines = await listCatalogWithStock();
  const stockProducts = lines
    .filter((line) => isStockKind(line.kind))
    .flatMap((line) => line.products.map((product) => ({ line, product })));

  return (
    <>
      <h1>Catalog</h1>
      <p>
        <Link href="/admin/catalog/import">Import a price list</Link> ·{" "}
        <a href="/admin/catalog/export.csv" download>
          Export the catalog (CSV)
        </a>
      </p>
      {lines.length === 0 ? (
        <p className="muted">
          No game lines yet: create one below, or run <code>npm run db:seed</code> for the demo catalog.
        </p>
      ) : null}
      <details className="panel">
        <summary>New line</summary>
        <ActionForm
          action={saveGameLineAction}
          submitLabel="Create line"
          tone="primary"
          layout="stacked"
          label="New line"
        >
          <LineFormFields />
        </ActionForm>
      </details>
      {lines.map((line) => (
        <CatalogLinePanel key={line.id} line={line} />
      ))}

      {stockProducts.length > 0 ? <AddCodesPanel stockProducts={stockProducts} /> : null}
    </>
  );
}
