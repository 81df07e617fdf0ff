// Supplier accounts and offers for tests, written as an admin's changes would leave them.
import { sql, sqlRow } from "./db";

/** A supplier account (created, or its kind and settings replaced); its id. */
export async function upsertSupplier(name: string, kind: "sandbox" | "h2h", settings: object = {}): Promise<number> {
  const row = await sqlRow(
    `INSERT INTO suppliers (name, kind, settings) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET kind = EXCLUDED.kind, settings = EXCLUDED.settings, updated_at = now()
     RETURNING id`,
    [name, kind, JSON.stringify(settings)],
  );
  return row.id;
}

/** Every pack of the line is carried by the named supplier alone, with the pack's own SKU. */
export async function routeLineTo(slug: string, supplierId: number): Promise<void> {
  await sql(
    `DELETE FROM supplier_offers f USING products p, game_lines l
      WHERE f.product_id = p.id AND l.id = p.line_id AND l.slug = $1`,
    [slug],
  );
  await sql(
    `INSERT INTO supplier_offers (product_id, supplier_id, sku)
     SELECT p.id, $2, p.supplier_sku FROM products p JOIN game_lines l ON l.id = p.line_id WHERE l.slug = $1`,
    [slug, supplierId],
  );
}
