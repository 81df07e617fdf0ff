// Catalog management in Chromium against the real server: an owner creates a line and a pack,
// imports a price list with a bad row (nothing applied, the row named), fixes and applies it, and
// changes a line's prices by a percentage; each change shows in GET /products over HTTP at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright";
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

const ADMIN_EMAIL = "catalog-owner@example.com";
const ADMIN_PASSWORD = "correct horse battery staple";
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[catalog e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

const HEADER = "catalog_id,line,name,price_usd,active,stock_alert_below,supplier_sku";

async function products(key: string): Promise<{ id: string; price: number; packName: string; slug: string }[]> {
  const res = await api("/products", { key });
  expect(res.status).toBe(200);
  return res.json.products;
}

async function catalogRows() {
  return await sql(`SELECT catalog_id, pack_name, price_cents, active, updated_at FROM products ORDER BY catalog_id`);
}

/** Fills the catalog page's "New line" form and submits it; the form, for its answer. */
async function submitNewLine(
  page: Page,
  line: { slug: string; code: string; gameName: string; productName: string; requiredFields: string },
) {
  await page.getByText("New line", { exact: true }).click();
  const form = page.getByRole("form", { name: "New line" });
  await form.getByLabel("Slug", { exact: true }).fill(line.slug);
  await form.getByLabel("Code", { exact: true }).fill(line.code);
  await form.getByLabel("Game name", { exact: true }).fill(line.gameName);
  await form.getByLabel("Product name", { exact: true }).fill(line.productName);
  await form.getByRole("textbox", { name: /^Required fields/ }).fill(line.requiredFields);
  await form.getByRole("button", { name: "Create line" }).click();
  return form;
}

describe.skipIf(!chromiumPath)("catalog management in Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let totpSecret: string;
  let customer: Awaited<ReturnType<typeof createAccount>>;

  beforeAll(async () => {
    await resetDatabase();
    await seedDemoCatalog();
    expect(
      (await createAdminUser({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD, role: "owner", actor: "test" })).status,
    ).toBe("created");
    // Owners reach owner actions only with two-factor on.
    totpSecret = (await enableTwoFactor(ADMIN_EMAIL)).secret;
    customer = await createAccount({ balanceCents: 5_000 });
    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await closePool();
    await closeSql();
  });

  it("gives the import page and the export to nobody without a session", async () => {
    for (const path of ["/admin/catalog/import", "/admin/catalog/export.csv"]) {
      const res = await fetch(suiteBaseUrl() + path, { redirect: "manual" });
      expect(res.status, path).toBe(307);
      expect(new URL(res.headers.get("location")!, suiteBaseUrl()).pathname, path).toBe("/admin/login");
      expect(await res.text(), path).not.toContain("SVCBR60");
    }
  });

  it("creates a line and a pack, which GET /products lists at once", async () => {
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD, { totpSecret });
    await page.goto("/admin/catalog");
    const lineForm = await submitNewLine(page, {
      slug: "arcade",
      code: "AR",
      gameName: "Arcade Heroes",
      productName: "Arcade Heroes Tokens",
      requiredFields: "userId: Hero ID",
    });
    await expect.poll(() => lineForm.getByRole("status").textContent()).toBe("Line arcade created.");

    const section = page.getByRole("region", { name: "Line arcade" });
    await section.getByText("New pack on arcade").click();
    const packForm = section.getByRole("form", { name: "New pack on arcade" });
    await packForm.getByLabel("Catalog id", { exact: true }).fill("SVCAR100");
    await packForm.getByLabel("Name", { exact: true }).fill("100 Tokens");
    await packForm.getByLabel("Price (USD)", { exact: true }).fill("2.49");
    await packForm.getByLabel("Supplier SKU", { exact: true }).fill("ar-100");
    await packForm.getByRole("button", { name: "Create pack" }).click();
    await expect.poll(() => packForm.getByRole("status").textContent()).toContain("Pack SVCAR100 created.");
    await section.locator('tr[data-catalog-id="SVCAR100"]').waitFor();
    // The line's default supplier (the sandbox account) carries it, so it is not flagged.
    expect(await section.getByTestId("no-supplier").count()).toBe(0);
    await screenshot(page, "catalog-new-line-and-pack");

    expect((await products(customer.key)).find((product) => product.id === "SVCAR100")).toMatchObject({
      slug: "arcade",
      packName: "100 Tokens",
      price: 2.49,
    });
    const placed = await order(customer.key, { pid: "SVCAR100", trxid: newTrxid("arcade"), userId: "4040001" });
    expect(placed.json).toMatchObject({ orderCreated: true, amountUsd: 2.49 });
    expect(
      await sql(`SELECT action FROM audit_log WHERE action IN ('line.create', 'product.create') ORDER BY id`),
    ).toEqual([{ action: "line.create" }, { action: "product.create" }]);
  });

  it("exports the catalog as the price list the import reads", async () => {
    const res = await page.request.get("/admin/catalog/export.csv");
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("text/csv");
    const csv = await res.text();
    expect(csv.split("\r\n")[0]).toBe(HEADER);
    expect(csv).toContain('"SVCAR100","arcade","100 Tokens","2.49","true","","ar-100"');
  });

  it("previews a price list with a bad row, applies nothing, then applies the fixed list", async () => {
    await page.goto("/admin/catalog/import");
    const before = await catalogRows();
    const audits = (await sqlRow(`SELECT count(*)::int AS n FROM audit_log`)).n;
    const textarea = page.getByRole("textbox", { name: "Price list CSV" });
    const previewForm = page.getByRole("form", { name: "Preview price list" });

    await textarea.fill(
      [HEADER, "SVCAR100,arcade,100 Tokens,2.99,true,,ar-100", "SVCAR500,arcade,500 Tokens,eleven,true,,ar-500"].join(
        "\n",
      ),
    );
    await previewForm.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => previewForm.getByRole("status").textContent()).toContain("1 bad row");
    const badRows = page.getByRole("table", { name: "Bad rows" });
    await expect.poll(() => badRows.locator("tbody tr").count()).toBe(1);
    expect(await badRows.locator('tr[data-row="3"]').textContent()).toContain("price_usd: Amount must be");
    expect(await page.getByRole("form", { name: "Apply price list" }).count()).toBe(0);
    await screenshot(page, "catalog-import-bad-row");
    expect(await catalogRows()).toEqual(before);
    expect((await sqlRow(`SELECT count(*)::int AS n FROM audit_log`)).n).toBe(audits);
    expect((await products(customer.key)).map((product) => product.id)).not.toContain("SVCAR500");

    await textarea.fill(
      [HEADER, "SVCAR100,arcade,100 Tokens,2.99,true,,ar-100", "SVCAR500,arcade,500 Tokens,11.00,true,,ar-500"].join(
        "\n",
      ),
    );
    await previewForm.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => previewForm.getByRole("status").textContent())
      .toBe("2 changes to apply, 0 rows unchanged.");
    const changes = page.getByRole("table", { name: "Changes" });
    expect(await changes.locator('tr[data-catalog-id="SVCAR100"]').textContent()).toContain("price $2.49 → $2.99");
    expect(await changes.locator('tr[data-catalog-id="SVCAR500"]').textContent()).toContain("new pack on arcade");
    expect(await page.getByRole("table", { name: "Bad rows" }).count()).toBe(0);
    const applyForm = page.getByRole("form", { name: "Apply price list" });
    await applyForm.getByRole("button", { name: "Apply…" }).click();
    await applyForm.getByRole("button", { name: "Confirm: Apply" }).click();
    await expect
      .poll(() => applyForm.getByRole("status").textContent())
      .toBe("Applied: 1 pack created, 1 changed (prices apply to new orders only).");
    await screenshot(page, "catalog-import-applied");

    const listed = await products(customer.key);
    expect(listed.find((product) => product.id === "SVCAR500")).toMatchObject({ slug: "arcade", price: 11 });
    expect(listed.find((product) => product.id === "SVCAR100")).toMatchObject({ price: 2.99 });
    expect((await sqlRow(`SELECT actor, details FROM audit_log WHERE action = 'catalog.import'`)).actor).toBe(
      `admin:${ADMIN_EMAIL}`,
    );
    expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
  });

  it("changes a line's prices by a percentage after confirmation", async () => {
    await page.goto("/admin/catalog");
    const form = page.getByRole("form", { name: "Change prices of arcade" });
    await form.getByLabel("By percent").fill("10");
    await form.getByRole("button", { name: "Change all prices…" }).click();
    await form.getByRole("button", { name: "Confirm: Change all prices" }).click();
    // 2.99 * 1.1 = 3.289 -> 3.29; 11.00 * 1.1 = 12.10
    await expect
      .poll(() => form.getByRole("status").textContent())
      .toBe("arcade: SVCAR100 $2.99 → $3.29, SVCAR500 $11.00 → $12.10 for new orders.");
    const listed = await products(customer.key);
    expect(listed.find((product) => product.id === "SVCAR100")?.price).toBe(3.29);
    expect(listed.find((product) => product.id === "SVCAR500")?.price).toBe(12.1);
    expect(pageProblems(context).consoleErrors, "console errors").toEqual([]);
  });

  it("refuses catalog changes to a viewer, who can still export", async () => {
    const email = "catalog-viewer@example.com";
    expect((await createAdminUser({ email, password: ADMIN_PASSWORD, role: "viewer", actor: "test" })).status).toBe(
      "created",
    );
    await enableTwoFactor(email);
    const viewer = await newDashboardContext(browser);
    try {
      const viewerPage = await viewer.newPage();
      await signIn(viewerPage, email, ADMIN_PASSWORD);
      await viewerPage.goto("/admin/catalog");
      const before = await catalogRows();
      const lineForm = await submitNewLine(viewerPage, {
        slug: "viewerline",
        code: "VW",
        gameName: "Viewer",
        productName: "Viewer",
        requiredFields: "userId: ID",
      });
      await expect
        .poll(() => lineForm.getByRole("status").textContent())
        .toBe("Needs the owner role (yours is viewer): nothing was changed.");
      expect((await sqlRow(`SELECT count(*)::int AS n FROM game_lines WHERE slug = 'viewerline'`)).n).toBe(0);
      expect(await catalogRows()).toEqual(before);
      expect((await viewerPage.request.get("/admin/catalog/export.csv")).status()).toBe(200);
    } finally {
      await viewer.close();
    }
  });

  it("edits a pack after confirmation; its catalog id stays", async () => {
    await page.goto("/admin/catalog");
    const row = page.locator('tr[data-catalog-id="SVCAR500"]');
    await row.getByText("Edit", { exact: true }).click();
    const form = row.getByRole("form", { name: "Edit SVCAR500" });
    // The label of a filled input may carry its value: match the label text from its start.
    await form.getByRole("textbox", { name: /^Name/ }).fill("500 Tokens Mega");
    await form.getByRole("button", { name: "Save pack…" }).click();
    await form.getByRole("button", { name: "Confirm: Save pack" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toBe("SVCAR500 saved: packName changed.");
    expect((await products(customer.key)).find((product) => product.id === "SVCAR500")).toMatchObject({
      packName: "500 Tokens Mega",
      price: 12.1,
    });
    expect(
      (await sqlRow(`SELECT details FROM audit_log WHERE action = 'product.update' ORDER BY id DESC LIMIT 1`)).details,
    ).toEqual({ catalogId: "SVCAR500", changes: { packName: { from: "500 Tokens", to: "500 Tokens Mega" } } });
  });
});
