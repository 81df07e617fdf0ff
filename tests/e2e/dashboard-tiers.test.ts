// /admin/tiers and the account page's tier in Chromium against the real server: refused without a
// session; an owner creates a tier, sets a pack's percent off (through the confirmation step), puts
// an account on it, and the account's key sees and pays that price over HTTP; an operator is
// refused; a price below cost is flagged and needs confirming, and a save from a page opened before
// another save is refused; removing the tier returns the account to list prices. Each change is audited.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { closePool } from "@/lib/db/pool";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { enableTwoFactor } from "../helpers/two-factor";
import { suiteBaseUrl } from "../helpers/suite";
import { api } from "../helpers/api";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { findChromium, launchBrowser, newDashboardContext, pageProblems, screenshot, signIn } from "../helpers/browser";

const OWNER_EMAIL = "tiers-owner@example.com";
const OPERATOR_EMAIL = "tiers-operator@example.com";
const PASSWORD = "correct horse battery staple";
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[tiers dashboard e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

async function shownPrice(key: string, pid: string): Promise<number> {
  const res = await api("/products", { key });
  expect(res.status, res.text).toBe(200);
  return res.json.products.find((p: { id: string }) => p.id === pid).price;
}

describe.skipIf(!chromiumPath)("the price tiers page", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let ownerTotpSecret: string;
  let customer: Awaited<ReturnType<typeof createAccount>>;

  beforeAll(async () => {
    await resetDatabase();
    await seedDemoCatalog();
    for (const [email, role] of [
      [OWNER_EMAIL, "owner"],
      [OPERATOR_EMAIL, "operator"],
    ] as const)
      expect((await createAdminUser({ email, password: PASSWORD, role, actor: "test" })).status).toBe("created");
    // Every admin reaches the dashboard only with two-factor on.
    ownerTotpSecret = (await enableTwoFactor(OWNER_EMAIL)).secret;
    await enableTwoFactor(OPERATOR_EMAIL);
    customer = await createAccount({ balanceCents: 1_000, username: "tiered_reseller" });
    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await closePool();
    await closeSql();
  });

  it("is refused without a session", async () => {
    const res = await fetch(`${suiteBaseUrl()}/admin/tiers`, { redirect: "manual" });
    expect(res.status).toBe(307);
    expect(new URL(res.headers.get("location")!, suiteBaseUrl()).pathname).toBe("/admin/login");
  });

  it("an owner makes a tier, prices a pack in it and moves an account onto it: the API charges that price", async () => {
    await signIn(page, OWNER_EMAIL, PASSWORD, { totpSecret: ownerTotpSecret });
    await page.goto("/admin/tiers");
    const create = page.getByRole("form", { name: "Create tier" });
    await create.getByRole("textbox", { name: "Tier name" }).fill("Gold");
    await create.getByRole("button", { name: "Create tier" }).click();
    await expect.poll(() => create.getByRole("status").textContent()).toContain("Tier gold created");

    const tier = page.getByRole("region", { name: "Tier gold" });
    const setPrice = tier.getByRole("form", { name: "Set a pack price in gold" });
    await setPrice.getByRole("combobox", { name: "Pack" }).selectOption("SVCBR60");
    await setPrice.getByRole("combobox", { name: "Rule" }).selectOption("percent");
    await setPrice.getByRole("textbox", { name: "Value" }).fill("20");
    await setPrice.getByRole("button", { name: "Set price…" }).click();
    // Nothing changes before the confirmation.
    expect(await sql(`SELECT 1 FROM price_tier_prices`)).toEqual([]);
    await setPrice.getByRole("button", { name: "Confirm: Set price" }).click();
    const row = tier.getByRole("table", { name: "Prices of gold" }).locator("tr", { hasText: "SVCBR60" });
    await expect.poll(() => row.textContent().catch(() => "")).toContain("20 % off");
    expect(await row.textContent()).toContain("$0.79"); // 20 % off $0.99 = 79.2 cents
    await screenshot(page, "tiers");

    await page.goto(`/admin/accounts/${customer.accountId}`);
    expect(await page.getByTestId("price-tier").textContent()).toBe("none (list prices)");
    const move = page.getByRole("form", { name: "Set price tier" });
    await move.getByRole("combobox", { name: "Price tier" }).selectOption("gold");
    await move.getByRole("button", { name: "Set price tier…" }).click();
    await move.getByRole("button", { name: "Confirm: Set price tier" }).click();
    await expect.poll(() => move.getByRole("status").textContent()).toContain("Now on tier gold");
    await expect.poll(() => page.getByTestId("price-tier").textContent()).toBe("gold");

    expect(await shownPrice(customer.key, "SVCBR60")).toBe(0.79);
    const placed = await order(customer.key, { pid: "SVCBR60", trxid: newTrxid("tiers-e2e"), userId: "5120001" });
    expect(placed.json).toMatchObject({ orderCreated: true, amountUsd: 0.79 });
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [customer.accountId])).balance_cents).toBe(
      921,
    );

    expect(await sql(`SELECT actor, action FROM audit_log WHERE action LIKE '%tier%' ORDER BY id`)).toEqual([
      { actor: `admin:${OWNER_EMAIL}`, action: "price_tier.create" },
      { actor: `admin:${OWNER_EMAIL}`, action: "price_tier.pack_price" },
      { actor: `admin:${OWNER_EMAIL}`, action: "account.price_tier" },
    ]);
    expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
  });

  it("refuses an operator: tiers are the owner's", async () => {
    const operatorContext = await newDashboardContext(browser);
    const operatorPage = await operatorContext.newPage();
    await signIn(operatorPage, OPERATOR_EMAIL, PASSWORD);
    await operatorPage.goto("/admin/tiers");
    const create = operatorPage.getByRole("form", { name: "Create tier" });
    await create.getByRole("textbox", { name: "Tier name" }).fill("silver");
    await create.getByRole("button", { name: "Create tier" }).click();
    await expect.poll(() => create.getByRole("status").textContent()).toContain("Needs the owner role");
    await operatorPage.goto(`/admin/accounts/${customer.accountId}`);
    // The account page shows an operator no tier form (the action itself refuses them too:
    // tests/e2e/dashboard-roles.test.ts).
    await expect.poll(() => operatorPage.getByTestId("price-tier").count()).toBe(1);
    expect(await operatorPage.getByRole("form", { name: "Set price tier" }).count()).toBe(0);
    expect(await sql(`SELECT name FROM price_tiers`)).toEqual([{ name: "gold" }]);
    expect(
      (await sqlRow(`SELECT price_tier_id FROM accounts WHERE id = $1`, [customer.accountId])).price_tier_id,
    ).not.toBeNull();
    await operatorContext.close();
  });

  it("flags a tier price below cost and asks to confirm one; a save from a page opened before is refused", async () => {
    await sql(`UPDATE supplier_offers SET cost_cents = 90 WHERE sku = 'br-60'`);
    const stalePage = await context.newPage();
    try {
      await page.goto("/admin/tiers");
      await stalePage.goto("/admin/tiers");
      const tier = page.getByRole("region", { name: "Tier gold" });
      const row = () => tier.getByRole("table", { name: "Prices of gold" }).locator("tr", { hasText: "SVCBR60" });
      // 79 cents, every live supplier charges 90.
      expect(await row().getByTestId("below-cost").count()).toBe(1);

      const setPrice = tier.getByRole("form", { name: "Set a pack price in gold" });
      const fill = async () => {
        await setPrice.getByRole("combobox", { name: "Pack" }).selectOption("SVCBR60");
        await setPrice.getByRole("combobox", { name: "Rule" }).selectOption("price");
        await setPrice.getByRole("textbox", { name: "Value" }).fill("0.50");
      };
      await fill();
      await setPrice.getByRole("button", { name: "Set price…" }).click();
      await setPrice.getByRole("button", { name: "Confirm: Set price" }).click();
      await expect
        .poll(() => setPrice.getByRole("status").textContent())
        .toContain("is below its cheapest live supplier cost ($0.90)");
      expect(await row().textContent()).toContain("$0.79");

      await fill();
      await setPrice.getByRole("checkbox", { name: "sell below cost" }).check();
      await setPrice.getByRole("button", { name: "Set price…" }).click();
      await setPrice.getByRole("button", { name: "Confirm: Set price" }).click();
      await expect.poll(() => row().textContent()).toContain("$0.50");
      expect(await row().getByTestId("below-cost").count()).toBe(1);

      // The other tab still shows the tier as it was before that save.
      const rename = stalePage.getByRole("region", { name: "Tier gold" }).getByRole("form", { name: "Rename gold" });
      await rename.getByRole("textbox", { name: "New name" }).fill("platinum");
      await rename.getByRole("button", { name: "Rename" }).click();
      await expect.poll(() => rename.getByRole("status").textContent()).toContain("was changed by another admin");
      expect(await sql(`SELECT name FROM price_tiers`)).toEqual([{ name: "gold" }]);
    } finally {
      await stalePage.close();
      await sql(`UPDATE supplier_offers SET cost_cents = 0 WHERE sku = 'br-60'`);
    }
  });

  it("removing the tier returns its account to list prices", async () => {
    await page.goto("/admin/tiers");
    const remove = page.getByRole("region", { name: "Tier gold" }).getByRole("form", { name: "Remove gold" });
    await remove.getByRole("button", { name: "Remove tier…" }).click();
    await remove.getByRole("button", { name: "Confirm: Remove tier" }).click();
    await expect.poll(async () => (await sql(`SELECT 1 FROM price_tiers`)).length).toBe(0);
    expect(await shownPrice(customer.key, "SVCBR60")).toBe(0.99);
    expect(await sqlRow(`SELECT actor, details FROM audit_log WHERE action = 'price_tier.remove'`)).toEqual({
      actor: `admin:${OWNER_EMAIL}`,
      details: { name: "gold", accountIds: [customer.accountId] },
    });
  });
});
