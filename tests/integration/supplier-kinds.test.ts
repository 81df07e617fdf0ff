// The database knows the supplier kinds from the registry (lib/suppliers/kinds/): the migrate command
// keeps supplier_kinds in step with it, an account of any other kind is refused by the foreign key,
// and real_supplier_carries() (a live top-up in production) reads whether a kind is real from there.
import { describe, expect, it } from "vitest";
import { applyMigrations } from "@/lib/db/migrate";
import { supplierKinds } from "@/lib/suppliers/kinds";
import { saveSupplierAccount } from "@/lib/suppliers/manage-suppliers";
import { useCleanDatabase } from "../helpers/clean-database";
import { sql, sqlRow } from "../helpers/db";
import { upsertSupplier } from "../helpers/suppliers";
import { suiteDatabaseUrl } from "../helpers/suite";

useCleanDatabase();

const declared = () =>
  supplierKinds()
    .map((kind) => ({ kind: kind.name, real: kind.real }))
    .sort((a, b) => a.kind.localeCompare(b.kind));
const stored = () => sql(`SELECT kind, real FROM supplier_kinds ORDER BY kind`);

/** Whether a live order for the pack may be placed in production. */
async function realSupplierCarries(catalogId: string): Promise<boolean> {
  const row = await sqlRow(`SELECT real_supplier_carries(id) AS carries FROM products WHERE catalog_id = $1`, [
    catalogId,
  ]);
  return row.carries;
}

describe("supplier_kinds", () => {
  it("holds the registry's kinds and whether each is real", async () => {
    expect(await stored()).toEqual(declared());
  });

  it("refuses an account of any other kind, from the page and in the database", async () => {
    expect(await saveSupplierAccount({ name: "acme", kind: "acme", settings: {}, actor: "test" })).toEqual({
      status: "refused",
      message: `Kind: one of ${supplierKinds()
        .map((kind) => kind.name)
        .join(", ")}.`,
    });
    await expect(sql(`INSERT INTO suppliers (name, kind) VALUES ('acme', 'acme')`)).rejects.toThrow(
      /suppliers_kind_fkey/,
    );
  });

  it("is put back as the registry says by the migrate command, which drops a kind no longer declared once unused", async () => {
    const h2h = await upsertSupplier("real-h2h", "h2h");
    await sql(
      `INSERT INTO supplier_offers (product_id, supplier_id, sku) SELECT id, $1, 'br-60' FROM products WHERE catalog_id = 'SVCBR60'`,
      [h2h],
    );
    expect(await realSupplierCarries("SVCBR60")).toBe(true);

    // As a database would be after a kind left the registry and another stopped being real.
    await sql(`UPDATE supplier_kinds SET real = false WHERE kind = 'h2h'`);
    await sql(`INSERT INTO supplier_kinds (kind, real) VALUES ('retired', true)`);
    await upsertSupplier("old-acme", "retired" as "h2h");
    expect(await realSupplierCarries("SVCBR60")).toBe(false);

    await expect(applyMigrations(suiteDatabaseUrl())).rejects.toThrow(
      'Supplier kinds no longer declared in lib/suppliers/kinds/ are still used by supplier accounts: "retired" (old-acme).',
    );
    await upsertSupplier("old-acme", "sandbox");
    expect(await applyMigrations(suiteDatabaseUrl())).toEqual([]);
    expect(await stored()).toEqual(declared());
    expect(await realSupplierCarries("SVCBR60")).toBe(true);
  });
});
