// The Suppliers page's account forms in Chromium against the real server: each kind's inputs come
// from its module (lib/suppliers/kinds/); an owner adds an h2h account with a secret (sealed, never
// shown); saving its form again without a secret keeps the sealed one; a private baseUrl and a
// secretEnv outside SUPPLIER_SECRET_* are refused with their reasons; a form opened before another
// save is refused; "Clear the sealed secret" clears it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { closePool } from "@/lib/db/pool";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { enableTwoFactor } from "../helpers/two-factor";
import { closeSql, resetDatabase, sqlRow } from "../helpers/db";
import { findChromium, launchBrowser, newDashboardContext, pageProblems, signIn } from "../helpers/browser";

const OWNER_EMAIL = "suppliers-owner@example.com";
const PASSWORD = "correct horse battery staple";
// A public address written as an IP: saving resolves nothing and connects nowhere.
const BASE_URL = "https://93.184.215.14/api";
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[suppliers dashboard e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

async function storedSettings(name: string): Promise<Record<string, unknown>> {
  return (await sqlRow(`SELECT settings FROM suppliers WHERE name = $1`, [name])).settings;
}

/** Fills a form's setting inputs, by their labels ("" empties one). */
async function fillSettings(form: Locator, settings: Record<string, string>) {
  for (const [label, value] of Object.entries(settings))
    await form.getByRole("textbox", { name: label, exact: true }).fill(value);
}

/** Fills the add form for an h2h account (React resets a form's fields after each answer) and sends it. */
async function addSupplier(page: Page, settings: Record<string, string>, secret: string) {
  const add = page.getByRole("form", { name: "Add h2h supplier" });
  await add.getByRole("textbox", { name: "Name", exact: true }).fill("acme");
  await fillSettings(add, settings);
  await add.getByLabel("Secret (h2h, optional)").fill(secret);
  await add.getByRole("button", { name: "Add supplier" }).click();
  return add;
}

describe.skipIf(!chromiumPath)("the supplier account forms", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    await resetDatabase();
    await seedDemoCatalog();
    expect(
      (await createAdminUser({ email: OWNER_EMAIL, password: PASSWORD, role: "owner", actor: "test" })).status,
    ).toBe("created");
    const { secret } = await enableTwoFactor(OWNER_EMAIL);
    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
    await signIn(page, OWNER_EMAIL, PASSWORD, { totpSecret: secret });
  });
  afterAll(async () => {
    await browser?.close();
    await closePool();
    await closeSql();
  });

  it("refuses a private baseUrl and a secretEnv outside SUPPLIER_SECRET_*", async () => {
    await page.goto("/admin/suppliers");
    const add = await addSupplier(page, { "Base URL": "http://127.0.0.1:9/api", "Partner id": "p" }, "acme-secret");
    await expect
      .poll(() => add.getByRole("status").textContent())
      .toContain("Settings: baseUrl: the URL must be https");

    await page.reload();
    await addSupplier(page, { "Base URL": BASE_URL, "Secret's environment variable": "DATABASE_URL" }, "");
    await expect
      .poll(() => add.getByRole("status").textContent())
      .toContain("secretEnv: must name an environment variable starting with SUPPLIER_SECRET_");
    expect(await sqlRow(`SELECT count(*)::int AS n FROM suppliers WHERE name = 'acme'`)).toEqual({ n: 0 });
  });

  it("keeps the sealed secret on an edit without one, refuses a stale form, and clears it on purpose", async () => {
    await page.reload();
    const add = await addSupplier(page, { "Base URL": BASE_URL, "Partner id": "p" }, "acme-secret");
    await expect.poll(() => add.getByRole("status").textContent()).toContain("Supplier acme saved.");
    const sealed = (await storedSettings("acme")).sealedSecret;
    expect(sealed).toEqual(expect.any(String));

    await page.reload();
    const stalePage = await context.newPage();
    await stalePage.goto("/admin/suppliers");
    const form = page.getByRole("form", { name: "Save supplier acme" });
    // The form shows the settings, each in its input, never the sealed secret.
    const shown = async (label: string) => form.getByRole("textbox", { name: label, exact: true }).inputValue();
    expect(await shown("Base URL")).toBe(BASE_URL);
    expect(await shown("Partner id")).toBe("p");
    expect(await shown("Timeout (ms)")).toBe("");
    expect(await form.getByLabel("New secret (empty: keep the sealed one)").inputValue()).toBe("");
    await fillSettings(form, { "Timeout (ms)": "4000" });
    await form.getByRole("button", { name: "Save supplier" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toContain("Supplier acme saved.");
    expect(await storedSettings("acme")).toEqual({
      baseUrl: BASE_URL,
      partnerId: "p",
      timeoutMs: 4000,
      sealedSecret: sealed,
    });

    const stale = stalePage.getByRole("form", { name: "Save supplier acme" });
    await fillSettings(stale, { "Partner id": "q" });
    await stale.getByRole("button", { name: "Save supplier" }).click();
    await expect.poll(() => stale.getByRole("status").textContent()).toContain("was changed by another admin");
    expect((await storedSettings("acme")).partnerId).toBe("p");
    await stalePage.close();

    await page.reload();
    const again = page.getByRole("form", { name: "Save supplier acme" });
    await fillSettings(again, { "Secret's environment variable": "SUPPLIER_SECRET_ACME" });
    await again.getByRole("checkbox", { name: "Clear the sealed secret" }).check();
    await again.getByRole("button", { name: "Save supplier" }).click();
    await expect.poll(() => again.getByRole("status").textContent()).toContain("Supplier acme saved.");
    expect(await storedSettings("acme")).toEqual({
      baseUrl: BASE_URL,
      partnerId: "p",
      timeoutMs: 4000,
      secretEnv: "SUPPLIER_SECRET_ACME",
    });
    expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
  });

  it("shows a sandbox account its own kind's inputs, and saves what they say", async () => {
    await page.reload();
    const form = page.getByRole("form", { name: "Save supplier sandbox" });
    await form.getByRole("checkbox", { name: "Down: refuses every top-up" }).check();
    await fillSettings(form, { "SKUs out of stock": "br-60, br-325" });
    await form.getByRole("button", { name: "Save supplier" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toContain("Supplier sandbox saved.");
    expect(await storedSettings("sandbox")).toEqual({ down: true, outOfStockSkus: ["br-60", "br-325"] });
    expect(await form.getByLabel("Secret", { exact: false }).count()).toBe(0);
  });
});
