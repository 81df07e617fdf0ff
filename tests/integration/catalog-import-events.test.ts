// A price list import that changes 5,000 packs does not flood (issue 40, acceptance 1): each watching
// account is told at most once per pack, with the price after every change made before the look (the
// import, then the line's prices moved by 10 %), and a pack whose price did not move for the account
// (its tier's fixed price) is not told. Read through GET /events, page by page, as a client would.
import { beforeAll, describe, expect, it } from "vitest";
import { sendCatalogChanges } from "@/lib/catalog/sql/send-catalog-changes";
import { importPriceList, previewPriceList } from "@/lib/catalog/import-price-list";
import { changeLinePrices } from "@/lib/catalog/change-line-prices";
import { createPriceTier } from "@/lib/pricing/create-price-tier";
import { setTierPackPrice } from "@/lib/pricing/set-tier-pack-price";
import { setAccountTier } from "@/lib/pricing/set-account-tier";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase();

const ROWS = 5_000;
let listPrices: Awaited<ReturnType<typeof createAccount>>;
let fixed: Awaited<ReturnType<typeof createAccount>>;

/** Every product.updated event of the key's account, through GET /events, page by page. */
async function productEvents(key: string): Promise<{ id: string; price: number }[]> {
  const events: { id: string; price: number }[] = [];
  let after = 0;
  for (;;) {
    const res = await api(`/events?after=${after}&limit=500`, { key });
    expect(res.status, res.text).toBe(200);
    for (const event of res.json.events) if (event.type === "product.updated") events.push(event.data);
    after = res.json.nextAfter;
    if (!res.json.hasMore) return events;
  }
}

beforeAll(async () => {
  // The demo catalog and enough packs on the br line for a 5,000-row file.
  const { n } = await sqlRow(`SELECT count(*)::int AS n FROM products`);
  await sql(
    `INSERT INTO products (catalog_id, line_id, pack_name, price_cents, supplier_sku, sort_order)
     SELECT 'SVCBRBULK' || i, l.id, 'Bulk pack ' || i, 100 + i, 'BULK-' || i, 1000 + i
       FROM game_lines l, generate_series(1, $1::int) i WHERE l.slug = 'br'`,
    [ROWS - n],
  );
  listPrices = await createAccount();
  fixed = await createAccount();
  expect(await createPriceTier({ name: "fixed", actor: "test" })).toMatchObject({ status: "saved" });
  const tier = await sqlRow(`SELECT id FROM price_tiers WHERE name = 'fixed'`);
  await setTierPackPrice({
    tierId: tier.id,
    catalogId: "SVCBRBULK1",
    rule: { priceCents: 50, percentOffBp: null },
    actor: "test",
  });
  await setAccountTier({ accountId: fixed.accountId, tierName: "fixed", actor: "test" });
  // Both start watching: told nothing of what they find.
  await sendCatalogChanges({ wait: true });
});

describe("a price list import", () => {
  it("of 5,000 packs, then the line's prices moved, tells each account at most once per pack, at the final price", async () => {
    const packs = await sql<{ catalog_id: string; slug: string; pack_name: string; price_cents: number }>(
      `SELECT p.catalog_id, l.slug, p.pack_name, p.price_cents, p.active
         FROM products p JOIN game_lines l ON l.id = p.line_id ORDER BY p.id`,
    );
    expect(packs).toHaveLength(ROWS);
    const csv = [
      "catalog_id,line,name,price_usd,active",
      ...packs.map((pack) => `${pack.catalog_id},${pack.slug},${pack.pack_name},${(pack.price_cents + 1) / 100},true`),
    ].join("\n");
    const preview = await previewPriceList(csv);
    expect(preview.errors).toEqual([]);
    expect(preview.changes).toHaveLength(ROWS);
    expect(await importPriceList({ csv, digest: preview.digest, actor: "test" })).toMatchObject({
      status: "applied",
      updated: ROWS,
    });
    const br = await sqlRow(`SELECT id FROM game_lines WHERE slug = 'br'`);
    expect(await changeLinePrices({ lineId: br.id, percent: "10", actor: "test" })).toMatchObject({
      status: "updated",
    });
    expect(await sendCatalogChanges({ wait: true })).toMatchObject({ events: 2 * ROWS - 1 });

    const listed = new Map<string, number>(
      (await api("/products", { key: listPrices.key })).json.products.map((p: { id: string; price: number }) => [
        p.id,
        p.price,
      ]),
    );
    expect(listed.size).toBe(ROWS);
    const toList = await productEvents(listPrices.key);
    expect(toList).toHaveLength(ROWS);
    expect(new Set(toList.map((product) => product.id)).size).toBe(ROWS);
    for (const product of toList) expect(product.price, product.id).toBe(listed.get(product.id));

    // The tier's fixed price did not move: every pack but that one, once.
    const toFixed = await productEvents(fixed.key);
    expect(toFixed).toHaveLength(ROWS - 1);
    expect(new Set(toFixed.map((product) => product.id)).size).toBe(ROWS - 1);
    expect(toFixed.map((product) => product.id)).not.toContain("SVCBRBULK1");

    // Nothing left to tell.
    expect(await sendCatalogChanges({ wait: true })).toMatchObject({ events: 0 });
  }, 600_000);
});
