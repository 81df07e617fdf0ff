// A tier price below the pack's cheapest live supplier cost (the catalog page's "below cost" rule,
// lib/pricing/is-below-cost.ts): the tiers page's data flags it, and saving one is refused unless the
// admin confirms it. A paused supplier's cost does not count: it is not selling the pack.
import { beforeAll, describe, expect, it } from "vitest";
import { createPriceTier } from "@/lib/pricing/create-price-tier";
import { isBelowCost } from "@/lib/pricing/is-below-cost";
import { setTierPackPrice } from "@/lib/pricing/set-tier-pack-price";
import { listPricedPacks, listPriceTiers } from "@/lib/pricing/sql/list-price-tiers";
import { useCleanDatabase } from "../helpers/clean-database";
import { sql, sqlRow } from "../helpers/db";
import { upsertSupplier } from "../helpers/suppliers";

const ACTOR = "admin:owner@example.com";
let tierId: number;
const price = (cents: number) => ({ priceCents: cents, percentOffBp: null });
const percentOff = (basisPoints: number) => ({ priceCents: null, percentOffBp: basisPoints });

useCleanDatabase();
beforeAll(async () => {
  expect(await createPriceTier({ name: "gold", actor: ACTOR })).toMatchObject({ status: "saved" });
  tierId = (await sqlRow(`SELECT id FROM price_tiers WHERE name = 'gold'`)).id;
  // SVCBR60 lists at $0.99; its live suppliers cost 70 and 80 cents, a paused one 10.
  const cheap = await upsertSupplier("paused-cheap", "sandbox");
  const live = await upsertSupplier("live-b", "sandbox");
  await sql(`UPDATE suppliers SET paused_at = now() WHERE id = $1`, [cheap]);
  await sql(
    `UPDATE supplier_offers SET cost_cents = 70 WHERE product_id = (SELECT id FROM products WHERE catalog_id = 'SVCBR60')`,
  );
  for (const [supplierId, cost] of [
    [cheap, 10],
    [live, 80],
  ])
    await sql(
      `INSERT INTO supplier_offers (product_id, supplier_id, sku, cost_cents, priority)
       SELECT id, $1, 'br-60', $2, 5 FROM products WHERE catalog_id = 'SVCBR60'`,
      [supplierId, cost],
    );
});

async function goldPrices() {
  return (await listPriceTiers()).find((tier) => tier.id === tierId)!.prices;
}

describe("a tier price below cost", () => {
  it("is refused unless confirmed, a fixed price or a percent off alike, and nothing is saved", async () => {
    for (const rule of [price(69), percentOff(3000)]) {
      const result = await setTierPackPrice({ tierId, catalogId: "SVCBR60", rule, actor: ACTOR });
      expect(result.status).toBe("refused");
      expect(result.message).toMatch(
        /^SVCBR60 at \$0\.69 in tier gold is below its cheapest live supplier cost \(\$0\.70\): tick "sell below cost"/,
      );
    }
    expect(await goldPrices()).toEqual([]);
  });

  it("at or above the cheapest live cost saves without asking (the paused supplier's 10 cents do not count)", async () => {
    expect(await setTierPackPrice({ tierId, catalogId: "SVCBR60", rule: price(70), actor: ACTOR })).toMatchObject({
      status: "saved",
    });
    const [row] = await goldPrices();
    expect(row).toMatchObject({ catalogId: "SVCBR60", tierPriceCents: 70, cheapestCostCents: 70 });
    expect(isBelowCost(row!.tierPriceCents, row!.cheapestCostCents)).toBe(false);
  });

  it("confirmed, it is saved and the tiers page's data flags it", async () => {
    const result = await setTierPackPrice({
      tierId,
      catalogId: "SVCBR60",
      rule: price(50),
      belowCostConfirmed: true,
      actor: ACTOR,
    });
    expect(result).toMatchObject({ status: "saved" });
    const [row] = await goldPrices();
    expect(row).toMatchObject({ tierPriceCents: 50, cheapestCostCents: 70 });
    expect(isBelowCost(row!.tierPriceCents, row!.cheapestCostCents)).toBe(true);
    const pack = (await listPricedPacks()).find((candidate) => candidate.catalogId === "SVCBR60");
    expect(pack).toMatchObject({ listPriceCents: 99, cheapestCostCents: 70 });
  });

  it("a pack no supplier carries has no cost to be below", async () => {
    await sql(`DELETE FROM supplier_offers WHERE product_id = (SELECT id FROM products WHERE catalog_id = 'SVCBR325')`);
    expect(await setTierPackPrice({ tierId, catalogId: "SVCBR325", rule: price(1), actor: ACTOR })).toMatchObject({
      status: "saved",
    });
    expect(isBelowCost(1, null)).toBe(false);
  });
});
