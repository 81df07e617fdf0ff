// Keeps supplier_kinds, which the suppliers table's foreign key and real_supplier_carries() read, in
// step with the kinds lib/suppliers/kinds/ declares. Run by the migrate command after the
// migrations, so a kind is added, or made real, in its module alone.
import type pg from "pg";
import { supplierKinds } from "../kinds";

/** Writes every declared kind and drops the rest; a kind dropped while accounts still use it stops the migrate. */
export async function syncSupplierKinds(client: pg.Client, log: (line: string) => void): Promise<void> {
  const { rows: table } = await client.query<{ exists: boolean }>(
    `SELECT to_regclass('supplier_kinds') IS NOT NULL AS exists`,
  );
  // A migrations folder from before the table (an upgrade's first steps) has nothing to keep yet.
  if (!table[0]!.exists) return;
  const kinds = supplierKinds();
  const names = kinds.map((kind) => kind.name);
  const { rows: used } = await client.query<{ kind: string; accounts: string[] }>(
    `SELECT kind, array_agg(name ORDER BY name) AS accounts FROM suppliers
      WHERE NOT kind = ANY($1::text[]) GROUP BY kind ORDER BY kind`,
    [names],
  );
  if (used.length) {
    const list = used.map((row) => `"${row.kind}" (${row.accounts.join(", ")})`).join("; ");
    throw new Error(
      `Supplier kinds no longer declared in lib/suppliers/kinds/ are still used by supplier accounts: ${list}.`,
    );
  }
  const { rows: changed } = await client.query<{ kind: string }>(
    `WITH declared AS (SELECT * FROM unnest($1::text[], $2::boolean[]) AS d(kind, real)),
          dropped AS (DELETE FROM supplier_kinds k WHERE NOT k.kind = ANY($1::text[]) RETURNING k.kind),
          written AS (INSERT INTO supplier_kinds (kind, real) SELECT kind, real FROM declared
                      ON CONFLICT (kind) DO UPDATE SET real = EXCLUDED.real
                      WHERE supplier_kinds.real IS DISTINCT FROM EXCLUDED.real
                      RETURNING kind)
     SELECT kind FROM dropped UNION ALL SELECT kind FROM written`,
    [names, kinds.map((kind) => kind.real)],
  );
  if (changed.length)
    log(`supplier kinds now as declared: ${kinds.map((k) => `${k.name}${k.real ? "" : " (not real)"}`).join(", ")}`);
}
