// Import a price list (CSV): preview every change and every bad row, then apply exactly that list.
import Link from "next/link";
import { PRICE_LIST_COLUMNS } from "@/lib/catalog/import-price-list";
import { requireAdminPage } from "../../../_lib/session";
import { PriceListImport } from "./price-list-import";

export const metadata = { title: "Import a price list · Top-up operations" };

export default async function ImportPriceListPage() {
  await requireAdminPage();
  return (
    <>
      <h1>Import a price list</h1>
      <section className="panel" aria-label="Price list format">
        <p>
          One row per pack, found by its catalog id: <code>{PRICE_LIST_COLUMNS.join(",")}</code>. A known catalog id
          changes that pack; a new one creates a pack on the named line. Packs the list does not name stay as they
          are. <code>stock_alert_below</code> and <code>supplier_sku</code> may be left out (the packs keep theirs).
          Start from the <a href="/admin/catalog/export.csv">export of the catalog</a>; prices are USD with up to two
          decimals and apply to new orders only. See the <Link href="/admin/catalog">catalog</Link>.
        </p>
      </section>
      <PriceListImport />
    </>
  );
}
