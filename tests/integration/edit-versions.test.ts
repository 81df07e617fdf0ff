// The dashboard's edit forms carry the version they were opened on (lib/db/edit-version.ts): for the
// catalog, the tiers, the suppliers and the settings, a save made from a page opened before another
// admin's save is refused with a clear message and the newer data stays. Each case opens the "page"
// (reads the version as the page does), lets another admin save, then saves from the stale page.
import { describe, expect, it } from "vitest";
import { editVersionOf, staleEditMessage } from "@/lib/db/edit-version";
import { getPrisma } from "@/lib/db/prisma";
import { listCatalogWithStock } from "@/lib/catalog/list-catalog-with-stock";
import { saveGameLine } from "@/lib/catalog/save-game-line";
import { savePack } from "@/lib/catalog/save-pack";
import { setProductPrice } from "@/lib/catalog/set-product-price";
import { createPriceTier } from "@/lib/pricing/create-price-tier";
import { renamePriceTier } from "@/lib/pricing/rename-price-tier";
import { setTierPackPrice } from "@/lib/pricing/set-tier-pack-price";
import { listPriceTiers } from "@/lib/pricing/sql/list-price-tiers";
import { readEligibilityRuleState } from "@/lib/settings/read-switch-states";
import { setEligibilityRule } from "@/lib/settings/set-switch";
import { listSupplierAccounts, saveSupplierAccount } from "@/lib/suppliers/manage-suppliers";
import { NEVER_SAVED } from "@/lib/db/edit-version";
import { useCleanDatabase } from "../helpers/clean-database";

const ALICE = "admin:alice@example.com";
const BOB = "admin:bob@example.com";

useCleanDatabase();

async function openCatalog(catalogId: string) {
  const lines = await listCatalogWithStock();
  const line = lines.find((candidate) => candidate.products.some((product) => product.catalogId === catalogId))!;
  const product = line.products.find((candidate) => candidate.catalogId === catalogId)!;
  return { line, product, lineVersion: editVersionOf(line.updatedAt), packVersion: editVersionOf(product.updatedAt) };
}

function packFields(product: Awaited<ReturnType<typeof openCatalog>>["product"], changes: object) {
  return {
    catalogId: product.catalogId,
    packName: product.packName,
    priceCents: product.priceCents,
    active: product.active,
    stockAlertBelow: product.stockAlertBelow,
    supplierSku: product.supplierSku,
    ...changes,
  };
}

describe("catalog", () => {
  it("a pack saved from a stale page is refused; the newer save stays", async () => {
    const page = await openCatalog("SVCBR60");
    const newer = await savePack({
      productId: page.product.id,
      fields: packFields(page.product, { packName: "Bob's name" }),
      version: page.packVersion,
      actor: BOB,
    });
    expect(newer.status).toBe("updated");
    const stale = await savePack({
      productId: page.product.id,
      fields: packFields(page.product, { priceCents: 4321 }),
      version: page.packVersion,
      actor: ALICE,
    });
    expect(stale).toEqual({ status: "refused", problems: [staleEditMessage("SVCBR60")] });
    const stored = await getPrisma().product.findUniqueOrThrow({ where: { id: page.product.id } });
    expect(stored.packName).toBe("Bob's name");
    expect(Number(stored.priceCents)).toBe(page.product.priceCents);
  });

  it("a price set from a stale page is refused; the newer price stays", async () => {
    const page = await openCatalog("SVCBR60");
    const newer = await setProductPrice({
      productId: page.product.id,
      priceCents: 111,
      version: page.packVersion,
      actor: BOB,
    });
    expect(newer).toMatchObject({ status: "updated", toCents: 111 });
    const stale = await setProductPrice({
      productId: page.product.id,
      priceCents: 222,
      version: page.packVersion,
      actor: ALICE,
    });
    expect(stale).toEqual({ status: "stale", message: staleEditMessage("SVCBR60") });
    const stored = await getPrisma().product.findUniqueOrThrow({ where: { id: page.product.id } });
    expect(Number(stored.priceCents)).toBe(111);
  });

  it("a line saved from a stale page is refused; the newer save stays", async () => {
    const { line, lineVersion } = await openCatalog("SVCBR60");
    const fields = {
      slug: line.slug,
      code: line.code,
      gameName: line.gameName,
      productName: line.productName,
      kind: line.kind,
      requiredFields: line.requiredFields,
      serverIdOptions: line.serverIdOptions,
      orderable: line.orderable,
      available: line.available,
      supplier: line.supplier,
    };
    const newer = await saveGameLine({
      lineId: line.id,
      fields: { ...fields, gameName: "Bob's game" },
      version: lineVersion,
      actor: BOB,
    });
    expect(newer.status).toBe("updated");
    const stale = await saveGameLine({
      lineId: line.id,
      fields: { ...fields, orderable: !line.orderable },
      version: lineVersion,
      actor: ALICE,
    });
    expect(stale).toEqual({ status: "refused", problems: [staleEditMessage(`Line ${line.slug}`)] });
    const stored = await getPrisma().gameLine.findUniqueOrThrow({ where: { id: line.id } });
    expect(stored).toMatchObject({ gameName: "Bob's game", orderable: line.orderable });
  });
});

describe("tiers", () => {
  it("a pack price or a rename from a stale page is refused; the newer prices stay", async () => {
    expect(await createPriceTier({ name: "gold", actor: BOB })).toMatchObject({ status: "saved" });
    const [tier] = await listPriceTiers();
    const version = editVersionOf(tier!.updatedAt);
    const rule = (priceCents: number) => ({ priceCents, percentOffBp: null });
    expect(
      await setTierPackPrice({ tierId: tier!.id, catalogId: "SVCBR60", rule: rule(80), version, actor: BOB }),
    ).toMatchObject({ status: "saved" });
    const stalePrice = await setTierPackPrice({
      tierId: tier!.id,
      catalogId: "SVCBR60",
      rule: rule(70),
      version,
      actor: ALICE,
    });
    expect(stalePrice).toEqual({ status: "refused", message: staleEditMessage("Tier gold") });
    const staleRename = await renamePriceTier({ tierId: tier!.id, name: "silver", version, actor: ALICE });
    expect(staleRename).toEqual({ status: "refused", message: staleEditMessage("Tier gold") });
    const [after] = await listPriceTiers();
    expect(after).toMatchObject({ name: "gold", prices: [{ catalogId: "SVCBR60", priceCents: 80 }] });
    // A page opened now saves.
    expect(
      await renamePriceTier({
        tierId: tier!.id,
        name: "silver",
        version: editVersionOf(after!.updatedAt),
        actor: ALICE,
      }),
    ).toMatchObject({ status: "saved" });
  });
});

describe("suppliers", () => {
  it("an account saved from a stale page is refused; the newer settings stay", async () => {
    const page = (await listSupplierAccounts()).find((account) => account.name === "sandbox")!;
    const version = editVersionOf(page.updatedAt);
    const save = (settings: object, actor: string) =>
      saveSupplierAccount({ name: "sandbox", kind: "sandbox", settings, version, actor });
    expect(await save({ latencyMs: 5 }, BOB)).toMatchObject({ status: "saved" });
    expect(await save({ down: true }, ALICE)).toEqual({
      status: "refused",
      message: staleEditMessage("Supplier sandbox"),
    });
    const stored = await getPrisma().supplier.findUniqueOrThrow({ where: { name: "sandbox" } });
    expect(stored.settings).toEqual({ latencyMs: 5 });
  });

  it("the add form cannot overwrite an existing account", async () => {
    const added = await saveSupplierAccount({ name: "sandbox", kind: "sandbox", settings: {}, actor: ALICE });
    expect(added).toEqual({ status: "refused", message: "Supplier sandbox exists: change it with its own form." });
  });
});

describe("settings", () => {
  it("an eligibility rule saved from a stale page is refused; the newer rule stays", async () => {
    const page = await readEligibilityRuleState();
    const version = editVersionOf(page.updatedAt ?? NEVER_SAVED);
    await setEligibilityRule({ enabled: true, minAccountAgeHours: 24 }, BOB, version);
    await expect(setEligibilityRule({ enabled: false }, ALICE, version)).rejects.toThrow(
      staleEditMessage("Setting API_ELIGIBILITY"),
    );
    expect((await readEligibilityRuleState()).value).toEqual({ enabled: true, minAccountAgeHours: 24 });
    // Never saved is a version too: a second "first" save is refused.
    await expect(setEligibilityRule({ enabled: false }, ALICE, editVersionOf(NEVER_SAVED))).rejects.toThrow(
      /changed by another admin/,
    );
  });
});
