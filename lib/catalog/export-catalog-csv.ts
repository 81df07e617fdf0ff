// The whole catalog as a price list: every pack of every line (disabled ones too), in catalog order,
// in the columns import-price-list.ts reads, so an exported file edited in a spreadsheet imports
// back. Names are free text, so the shared CSV writer neutralises formulas in them (the import
// reads the escaped text back as it was).
import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { centsToUsd } from "../money/cents-to-usd";
import { csvNumber, toCsv } from "../csv/to-csv";
import { PRICE_LIST_COLUMNS } from "./import-price-list";

export async function exportCatalogCsv(): Promise<string> {
  const products = await getPrisma().product.findMany({
    select: {
      catalogId: true,
      packName: true,
      priceCents: true,
      active: true,
      stockAlertBelow: true,
      supplierSku: true,
      line: { select: { slug: true } },
    },
    orderBy: [{ line: { sortOrder: "asc" } }, { line: { id: "asc" } }, { sortOrder: "asc" }, { id: "asc" }],
  });
  return toCsv(
    PRICE_LIST_COLUMNS,
    products.map((product) => [
      product.catalogId,
      product.line.slug,
      product.packName,
      csvNumber(centsToUsd(numberFromDb(product.priceCents)), 2),
      product.active,
      product.stockAlertBelow,
      product.supplierSku,
    ]),
  );
}
