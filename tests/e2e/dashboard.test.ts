// The admin dashboard end to end, in Chromium against the real server: sign-in and sign-out, every
// page and action refused without a session (and cross-site), finding an order by trxid, settling
// a flagged order, a switch the API obeys, code uploads that raise stock, account actions, the
// audit log, and charts whose numbers match the database. Screenshots of every page are saved
// under test-results/screenshots/.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page, Response } from "playwright";
import { loadEnv, projectRoot } from "@/lib/config/env";
import { closePool } from "@/lib/db/pool";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { decryptCode } from "@/lib/codes/code-crypto";
import { api } from "../helpers/api";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import {
  DASHBOARD_WIDTH,
  findChromium,
  launchBrowser,
  newDashboardContext,
  pageOverflow,
  pageProblems,
  screenshot,
  signIn,
} from "../helpers/browser";
import { enableTwoFactor } from "../helpers/two-factor";
import { dashboardActions, postAction } from "../helpers/dashboard-actions";
import { suiteBaseUrl, suiteDatabaseUrl } from "../helpers/suite";

const ADMIN_EMAIL = "ops@example.com";
const ADMIN_PASSWORD = "correct horse battery staple";
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[dashboard e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

/** Every dashboard page; ids are filled in once the test data exists. */
function dashboardPages(ids: { orderId: number; accountId: number }): string[] {
  return [
    "/admin",
    "/admin/orders",
    "/admin/orders?q=anything",
    `/admin/orders/${ids.orderId}`,
    "/admin/accounts",
    `/admin/accounts/${ids.accountId}`,
    "/admin/deposits",
    "/admin/deposits?status=all",
    "/admin/deposits/import",
    "/admin/catalog",
    "/admin/tiers",
    "/admin/settings",
    "/admin/audit",
    "/admin/admins",
    "/admin/account",
  ];
}

async function waitTerminal(key: string, orderId: string) {
  const res = await api(`/orders/${orderId}?wait=20`, { key });
  expect(res.status).toBe(200);
  return res.json;
}

/** expect.poll for hooks (where vitest does not allow it). */
async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * A loaded page ran under a nonce-based CSP: the answer's policy has a nonce and no 'unsafe-inline'
 * for scripts or styles, and each inline script of the page carries that nonce.
 */
async function expectNoncePolicy(page: Page, answer: Response | null, what: string): Promise<string> {
  const policy = (await answer?.allHeaders())?.["content-security-policy"] ?? "";
  const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
  expect(nonce, `${what}: a nonce in ${policy}`).toBeTruthy();
  expect(policy, what).not.toContain("'unsafe-inline'");
  // The browser hides the attribute once the script ran; the property keeps it.
  const nonces = await page
    .locator("script:not([src])")
    .evaluateAll((scripts) => scripts.map((script) => (script as HTMLScriptElement).nonce));
  expect(nonces.length, `${what}: inline scripts`).toBeGreaterThan(0);
  expect(new Set(nonces), what).toEqual(new Set([nonce]));
  return nonce!;
}

async function auditCount(): Promise<number> {
  return (await sqlRow(`SELECT count(*)::int AS n FROM audit_log`)).n;
}

/** Every page of the dashboard, from its page files, so a page added later is checked too. */
function everyPagePath(ids: { orderId: number; accountId: number }): string[] {
  const root = path.join(projectRoot, "app", "admin");
  const files = fs
    .readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => /(^|\/)page\.tsx$/.test(file));
  return files.map((file) => {
    const route = `/admin/${path.dirname(file)}`
      .replace(/\/\([^)]+\)/g, "")
      .replace(/\/\.$/, "")
      .replace("/orders/[id]", `/orders/${ids.orderId}`)
      .replace("/accounts/[id]", `/accounts/${ids.accountId}`);
    if (route.includes("[")) throw new Error(`no value for the dynamic segment of ${file}`);
    return route;
  });
}

describe.skipIf(!chromiumPath)("admin dashboard in Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let worker: RunningWorker;
  let customer: Awaited<ReturnType<typeof createAccount>>;
  const placed: { trxid: string; orderId: string; userId: string }[] = [];
  let flagged: { publicId: string; id: number; amountCents: number };
  let totpSecret: string;

  beforeAll(async () => {
    await resetDatabase();
    await seedDemoCatalog();
    expect(
      (await createAdminUser({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD, role: "owner", actor: "test" })).status,
    ).toBe("created");
    // Owner actions (catalog, suppliers) need two-factor: the admin signs in with a code.
    totpSecret = (await enableTwoFactor(ADMIN_EMAIL)).secret;
    worker = await startWorker({
      connectionString: suiteDatabaseUrl(),
      concurrency: 4,
      log: () => undefined,
      config: loadEnv({
        ...process.env,
        SUPPLIER_POLL_MS: "100",
        SUPPLIER_POLL_MAX_MS: "300",
        SUPPLIER_DEADLINE_MS: "1500",
      }),
    });

    // Orders of every kind, placed through the public API and fulfilled by the real worker.
    customer = await createAccount({ balanceCents: 5_000, username: "reseller_one" });
    for (const userId of ["7100001", "7100002", "7100404", "7100003"]) {
      const trxid = newTrxid("e2e");
      const res = await order(customer.key, { pid: "SVCBR60", trxid, userId });
      expect(res.status).toBe(200);
      placed.push({ trxid, orderId: res.json.orderId, userId });
    }
    for (const entry of placed) await waitTerminal(customer.key, entry.orderId);
    const poor = await createAccount({ balanceCents: 50 });
    expect((await order(poor.key, { pid: "SVCBR325", trxid: newTrxid("poor"), userId: "7100005" })).json.error).toBe(
      "INSUFFICIENT BALANCE",
    );
    // A top-up whose outcome never settles (sandbox player ending 777) is flagged for an admin.
    const stuck = await order(customer.key, { pid: "SVCBR325", trxid: newTrxid("stuck"), userId: "7100777" });
    await waitUntil(
      async () =>
        (await sqlRow(`SELECT needs_admin FROM orders WHERE public_id = $1`, [stuck.json.orderId])).needs_admin,
      15_000,
    );
    const row = await sqlRow(`SELECT id, amount_cents FROM orders WHERE public_id = $1`, [stuck.json.orderId]);
    flagged = { publicId: stuck.json.orderId, id: row.id, amountCents: row.amount_cents };

    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await closePool();
    await closeSql();
  });

  it("refuses every page and every action to a visitor without a session", async () => {
    const ids = { orderId: flagged.id, accountId: customer.accountId };
    for (const pagePath of dashboardPages(ids)) {
      const res = await fetch(suiteBaseUrl() + pagePath, { redirect: "manual" });
      expect(res.status, pagePath).toBe(307);
      expect(new URL(res.headers.get("location")!, suiteBaseUrl()).pathname, pagePath).toBe("/admin/login");
      expect(await res.text()).not.toContain(flagged.publicId);
      // A client-side navigation (RSC payload) gets the redirect and no data either.
      const rsc = await fetch(`${suiteBaseUrl()}${pagePath}${pagePath.includes("?") ? "&" : "?"}_rsc`, {
        redirect: "manual",
        headers: { rsc: "1" },
      });
      const payload = await rsc.text();
      expect(rsc.status, `${pagePath} (RSC)`).toBe(200);
      expect(payload, `${pagePath} (RSC)`).toContain("NEXT_REDIRECT;replace;/admin/login");
      for (const secret of [flagged.publicId, "reseller_one", "SVCGC10", ADMIN_EMAIL])
        expect(payload, `${pagePath} (RSC)`).not.toContain(secret);
    }

    const visitor = await newDashboardContext(browser);
    const visitorPage = await visitor.newPage();
    for (const pagePath of dashboardPages(ids)) {
      await visitorPage.goto(pagePath);
      expect(new URL(visitorPage.url()).pathname, pagePath).toBe("/admin/login");
    }
    await expect.poll(() => visitorPage.getByRole("button", { name: "Sign in" }).isVisible()).toBe(true);
    await screenshot(visitorPage, "01-login");

    const actions = dashboardActions(ids);
    expect(actions.map((action) => action.name).sort()).toEqual(
      expect.arrayContaining([
        "banAccountAction",
        "setSwitchAction",
        "cancelAndRefundFlaggedOrderAction",
        "importInventoryCodesAction",
      ]),
    );
    const auditBefore = await auditCount();
    for (const action of actions) {
      const res = await postAction(action);
      const body = await res.text();
      expect(res.status, action.name).toBe(200);
      expect(body, action.name).toContain("Not signed in");
    }
    expect(await auditCount()).toBe(auditBefore);
    expect((await sqlRow(`SELECT count(*)::int AS n FROM settings`)).n).toBe(0);
    expect((await sql(`SELECT needs_admin, status FROM orders WHERE id = $1`, [flagged.id]))[0]).toEqual({
      needs_admin: true,
      status: "processing",
    });
    expect(pageProblems(visitor).cspViolations, "Content-Security-Policy violations").toEqual([]);
    await visitor.close();
  });

  it("signs an admin in, and refuses a wrong password", async () => {
    await page.goto("/admin/login");
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => page.getByRole("form", { name: "Sign in" }).getByRole("alert").textContent())
      .toContain("Wrong email or password");
    expect(new URL(page.url()).pathname).toBe("/admin/login");

    await signIn(page, ADMIN_EMAIL.toUpperCase(), ADMIN_PASSWORD, { totpSecret });
    expect(await page.getByTestId("signed-in-as").textContent()).toBe(ADMIN_EMAIL);
    expect(
      (await sqlRow(`SELECT last_login_at FROM admin_users WHERE email = $1`, [ADMIN_EMAIL])).last_login_at,
    ).not.toBeNull();
  });

  it("the sign-in page and the dashboard run by their CSP nonce, with no violation or console error", async () => {
    const own = await newDashboardContext(browser);
    try {
      const ownPage = await own.newPage();
      const loginNonce = await expectNoncePolicy(ownPage, await ownPage.goto("/admin/login"), "/admin/login");
      // The form signs in by script, then loads the overview in full: it works only if the page's
      // scripts ran.
      await signIn(ownPage, ADMIN_EMAIL, ADMIN_PASSWORD, { totpSecret });
      await ownPage.getByTestId("signed-in-as").waitFor();
      const ordersNonce = await expectNoncePolicy(ownPage, await ownPage.goto("/admin/orders"), "/admin/orders");
      expect(ordersNonce).not.toBe(loginNonce);
      // A client-side navigation renders the next page from the server's payload.
      await ownPage.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Settings" }).click();
      await ownPage.locator('[data-switch="API_ORDER_DISABLED"]').waitFor();
      expect(pageProblems(own).cspViolations, "Content-Security-Policy violations").toEqual([]);
      expect(pageProblems(own).consoleErrors, "console errors").toEqual([]);
    } finally {
      await own.close();
    }
  });

  it("refuses a cross-site action even with a valid session (CSRF)", async () => {
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    expect(cookie).toContain("next-auth.session-token");
    const setSwitch = dashboardActions({ orderId: flagged.id, accountId: customer.accountId }).find(
      (action) => action.name === "setSwitchAction",
    )!;
    const auditBefore = await auditCount();
    // Control: from the dashboard's own origin the request reaches the action, which accepts the
    // session and then refuses the unconfirmed (empty) form.
    const sameSite = await postAction(setSwitch, { cookie });
    expect(sameSite.status).toBe(200);
    expect(await sameSite.text()).toContain("Not confirmed");
    // The same request from another origin never reaches the action: Next's origin check refuses it.
    const crossSite = await postAction(setSwitch, { cookie, origin: "https://evil.example" });
    expect(crossSite.status).toBe(500);
    expect(await crossSite.text()).not.toContain("Not confirmed");
    expect(await auditCount()).toBe(auditBefore);
    expect((await sqlRow(`SELECT count(*)::int AS n FROM settings`)).n).toBe(0);
  });

  it("finds an order from its trxid, and lists several orders of one player id", async () => {
    const target = placed[1]!;
    await page.goto("/admin/orders");
    await screenshot(page, "03-orders");
    await page.getByRole("searchbox", { name: /trxid/ }).fill(`  "${target.trxid}"  `);
    await page.getByRole("button", { name: "Find" }).click();
    await page.waitForURL(/\/admin\/orders\/\d+$/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain(target.orderId);
    const invoice = JSON.parse((await page.getByTestId("invoice").textContent())!);
    expect(invoice).toMatchObject({
      orderId: target.orderId,
      trxid: target.trxid,
      status: "completed",
      userId: target.userId,
    });
    await expect
      .poll(() => page.getByRole("region", { name: "Timeline" }).textContent())
      .toContain("processing → completed");
    expect(await page.getByRole("region", { name: "Ledger entries" }).textContent()).toContain("-$0.99");

    // Lower-case public id, as a customer might retype it.
    await page.goto(`/admin/orders?q=${encodeURIComponent(placed[2]!.orderId.toLowerCase())}`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain(placed[2]!.orderId);

    const again = await order(customer.key, { pid: "SVCBR60", trxid: newTrxid("again"), userId: target.userId });
    await waitTerminal(customer.key, again.json.orderId);
    await page.goto(`/admin/orders?q=${target.userId}`);
    expect(await page.getByTestId("search-summary").textContent()).toContain("2 orders match");
    const rows = page.getByRole("table", { name: "Orders" }).locator("tbody tr");
    expect(await rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain("player id");
  });

  it("filters the order table by status, line and account", async () => {
    await page.goto(`/admin/orders?status=refused`);
    const refused = page.getByRole("table", { name: "Orders" }).locator("tbody tr");
    expect(await refused.count()).toBe(1);
    expect(await refused.first().textContent()).toContain("refused");

    await page.goto(`/admin/orders?status=completed&line=br&account=%40reseller_one`);
    const rows = page.getByRole("table", { name: "Orders" }).locator("tbody tr");
    const expected = await sql(
      `SELECT count(*)::int AS n FROM orders WHERE status = 'completed' AND line_slug = 'br' AND account_id = $1`,
      [customer.accountId],
    );
    expect(await rows.count()).toBe(expected[0]!.n);
    await page.goto(`/admin/orders?account=%40nobody_here`);
    expect(await page.getByRole("main").getByRole("alert").textContent()).toContain("No account @nobody_here");
  });

  it("settles a flagged order after a confirmation, once, and audits it", async () => {
    const balanceBefore = (await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [customer.accountId]))
      .balance_cents;
    await page.goto("/admin");
    expect(await page.getByTestId("awaiting-admin").textContent()).toContain("1");
    await page.goto(`/admin/orders/${flagged.id}`);
    const settle = page.getByRole("region", { name: "Settle this order" });
    await settle
      .getByRole("form", { name: "Cancel and refund" })
      .getByRole("textbox")
      .fill("supplier says the top-up failed");
    await settle.getByRole("button", { name: "Cancel and refund…" }).click();
    // Nothing happens before the confirmation.
    expect(await settle.getByRole("alert").textContent()).toContain(`refund $4.99`);
    expect((await sqlRow(`SELECT status FROM orders WHERE id = $1`, [flagged.id])).status).toBe("processing");
    await screenshot(page, "04-order-flagged-confirm");
    await settle.getByRole("button", { name: "Confirm: Cancel and refund" }).click();
    // The page re-renders with the order settled: the actions are gone, the admin's action is listed.
    await settle.waitFor({ state: "detached" });
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("cancelled");
    expect(await page.getByRole("region", { name: "Ledger entries" }).textContent()).toContain(`order.cancel_refund`);

    const after = await sqlRow(`SELECT status, refunded, needs_admin, error FROM orders WHERE id = $1`, [flagged.id]);
    expect(after).toEqual({ status: "cancelled", refunded: true, needs_admin: false, error: "CANCELLED BY ADMIN" });
    const refunds = await sql(
      `SELECT amount_cents, actor FROM ledger_entries WHERE order_id = $1 AND kind = 'refund'`,
      [flagged.id],
    );
    expect(refunds).toEqual([{ amount_cents: flagged.amountCents, actor: `admin:${ADMIN_EMAIL}` }]);
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [customer.accountId])).balance_cents).toBe(
      balanceBefore + flagged.amountCents,
    );
    const audit = await sql(
      `SELECT actor, action, details FROM audit_log WHERE target_type = 'order' AND target_id = $1`,
      [String(flagged.id)],
    );
    expect(audit).toEqual([
      {
        actor: `admin:${ADMIN_EMAIL}`,
        action: "order.cancel_refund",
        details: {
          publicId: flagged.publicId,
          reason: "supplier says the top-up failed",
          settled: true,
          refundedCents: flagged.amountCents,
        },
      },
    ]);
    // The client sees it too.
    expect((await api(`/orders/${flagged.publicId}`, { key: customer.key })).json).toMatchObject({
      status: "cancelled",
      refunded: true,
      error: "CANCELLED BY ADMIN",
    });

    await page.reload();
    expect(await page.getByRole("region", { name: "Settle this order" }).count()).toBe(0);
    expect(await page.getByRole("region", { name: "Ledger entries" }).textContent()).toContain("+$4.99");
    expect(await page.getByRole("region", { name: "Timeline" }).textContent()).toContain(
      "CANCELLED BY ADMIN: refunded",
    );
    await screenshot(page, "05-order-settled");
  });

  it("turns API_ORDER_DISABLED on and off, and the API obeys within seconds", async () => {
    await page.goto("/admin/settings");
    const row = page.locator('[data-switch="API_ORDER_DISABLED"]');
    await row.getByRole("button", { name: "Turn API_ORDER_DISABLED on…" }).click();
    await row.getByRole("button", { name: "Confirm: Turn API_ORDER_DISABLED on" }).click();
    await expect.poll(() => row.getByRole("status").textContent()).toContain("API_ORDER_DISABLED is ON");
    await expect
      .poll(
        async () => (await order(customer.key, { pid: "SVCBR60", trxid: newTrxid("off"), userId: "7100010" })).json,
        { timeout: 5_000, interval: 250 },
      )
      .toMatchObject({ success: false, code: "API_ORDER_DISABLED" });
    expect((await api("/balance", { key: customer.key })).status).toBe(200);

    await page.reload();
    expect(await row.getAttribute("data-on")).toBe("true");
    expect(await row.getByTestId("changed-by").textContent()).toContain(`Last changed by admin:${ADMIN_EMAIL}`);
    await screenshot(page, "06-settings");

    await row.getByRole("button", { name: "Turn API_ORDER_DISABLED off…" }).click();
    await row.getByRole("button", { name: "Confirm: Turn API_ORDER_DISABLED off" }).click();
    await expect.poll(() => row.getByRole("status").textContent()).toContain("API_ORDER_DISABLED is OFF");
    await expect
      .poll(
        async () => (await order(customer.key, { pid: "SVCBR60", trxid: newTrxid("on"), userId: "7100011" })).status,
        { timeout: 5_000, interval: 250 },
      )
      .toBe(200);
    const audit = await sql(
      `SELECT actor, details FROM audit_log WHERE action = 'setting.set' AND target_id = 'API_ORDER_DISABLED' ORDER BY id`,
    );
    expect(audit).toEqual([
      { actor: `admin:${ADMIN_EMAIL}`, details: { from: null, to: true } },
      { actor: `admin:${ADMIN_EMAIL}`, details: { from: true, to: false } },
    ]);
  });

  it("pauses and resumes a supplier, audited, and flags a pack priced below every supplier's cost", async () => {
    await page.goto("/admin/suppliers");
    const row = page.locator('[data-supplier="sandbox"]');
    await row.getByRole("button", { name: "Pause…" }).click();
    await row.getByRole("button", { name: "Confirm: Pause" }).click();
    await expect.poll(() => row.getByRole("status").textContent()).toContain("sandbox paused");
    expect(await sql(`SELECT paused_at IS NOT NULL AS paused FROM suppliers WHERE name = 'sandbox'`)).toEqual([
      { paused: true },
    ]);
    await page.reload();
    await row.getByRole("button", { name: "Resume…" }).click();
    await row.getByRole("button", { name: "Confirm: Resume" }).click();
    await expect.poll(() => row.getByRole("status").textContent()).toContain("sandbox resumed");
    expect(await sql(`SELECT action, actor FROM audit_log WHERE target_type = 'supplier' ORDER BY id`)).toEqual([
      { action: "supplier.pause", actor: `admin:${ADMIN_EMAIL}` },
      { action: "supplier.resume", actor: `admin:${ADMIN_EMAIL}` },
    ]);

    await sql(`UPDATE supplier_offers SET cost_cents = 500 WHERE sku = 'br-60'`);
    try {
      await page.goto("/admin/catalog");
      expect(await page.locator('[data-catalog-id="SVCBR60"]').getByTestId("below-cost").count()).toBe(1);
      expect(await page.locator('[data-catalog-id="SVCBR325"]').getByTestId("below-cost").count()).toBe(0);
    } finally {
      await sql(`UPDATE supplier_offers SET cost_cents = 0 WHERE sku = 'br-60'`);
    }
  });

  it("uploads codes from a pasted list and a CSV file, refuses duplicates, and stock rises", async () => {
    await page.goto("/admin/catalog");
    const productRow = page.locator('tr[data-catalog-id="SVCGC10"]');
    const before = Number(await productRow.getByTestId("stock-available").textContent());
    expect(before).toBe(
      (
        await sqlRow(
          `SELECT count(*)::int AS n FROM inventory_codes c JOIN products p ON p.id = c.product_id WHERE p.catalog_id = 'SVCGC10' AND c.status = 'available'`,
        )
      ).n,
    );

    const form = page.getByRole("form", { name: "Add codes" });
    await form
      .getByRole("combobox")
      .selectOption({ label: (await form.locator("option", { hasText: "SVCGC10" }).textContent())! });
    await form
      .getByRole("textbox", { name: "Codes, one per line" })
      .fill(["E2E-GIFT-0001", "e2e-gift-0002", "DEMO-GC10-0001", "E2E-GIFT-0001"].join("\n"));
    await form.locator('input[type="file"]').setInputFiles({
      name: "codes.csv",
      mimeType: "text/csv",
      buffer: Buffer.from('code,note\n"E2E-GIFT-0003",batch 7\nE2E-GIFT-0004,batch 7\n'),
    });
    await form.getByRole("button", { name: "Add codes" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toContain("4 codes added");
    const message = (await form.getByRole("status").textContent())!;
    expect(message).toContain("1 already stored (pasted list line 3)");
    expect(message).toContain("1 repeated in the list (pasted list line 4)");
    await page.reload();
    expect(Number(await productRow.getByTestId("stock-available").textContent())).toBe(before + 4);
    await screenshot(page, "07-catalog");

    const stored = await sql(
      `SELECT c.ciphertext FROM inventory_codes c JOIN products p ON p.id = c.product_id WHERE p.catalog_id = 'SVCGC10' ORDER BY c.id DESC LIMIT 4`,
    );
    // Stored as typed: the lower-case code stays lower case.
    expect(stored.map((row) => decryptCode(row.ciphertext)).sort()).toEqual([
      "E2E-GIFT-0001",
      "E2E-GIFT-0003",
      "E2E-GIFT-0004",
      "e2e-gift-0002",
    ]);
    for (const row of stored) expect(row.ciphertext).not.toContain("E2E");
    const audit = await sqlRow(`SELECT actor, details FROM audit_log WHERE action = 'inventory.import'`);
    expect(audit).toEqual({
      actor: `admin:${ADMIN_EMAIL}`,
      details: { catalogId: "SVCGC10", added: 4, alreadyStored: 1, repeated: 1 },
    });
    expect(JSON.stringify(audit)).not.toContain("E2E-GIFT");
    expect(
      (await api("/products", { key: customer.key })).json.products.find((p: any) => p.id === "SVCGC10").stock,
    ).toBe(before + 4);
  });

  it("bans, restricts, blocks and lifts each again, each audited, and the API obeys every state", async () => {
    await page.goto(`/admin/accounts?q=reseller_one`);
    await page.getByRole("link", { name: "@reseller_one" }).click();
    await page.waitForURL(`**/admin/accounts/${customer.accountId}`);
    await screenshot(page, "08-account");
    const access = page.getByRole("region", { name: "Access actions" });
    /** Runs one access action through its confirmation, then waits for the page to show its effect. */
    const confirmAction = async (form: string, formAfter: string, reason?: string) => {
      if (reason)
        await access
          .getByRole("form", { name: form, exact: true })
          .getByPlaceholder(/Reason/)
          .fill(reason);
      await access
        .getByRole("form", { name: form, exact: true })
        .getByRole("button", { name: `${form}…` })
        .click();
      await access
        .getByRole("form", { name: form, exact: true })
        .getByRole("button", { name: `Confirm: ${form}` })
        .click();
      await access.getByRole("form", { name: formAfter, exact: true }).waitFor();
    };
    const apiCode = async () => (await api("/balance", { key: customer.key })).json.code ?? "OK";

    await confirmAction("Ban", "Unban", "chargeback fraud");
    expect(await apiCode()).toBe("ACCOUNT_BANNED");
    await confirmAction("Unban", "Ban");
    expect(await apiCode()).toBe("OK");
    await confirmAction("Restrict", "Lift restriction", "too many retries");
    expect(await apiCode()).toBe("ACCOUNT_RESTRICTED");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("restricted until");
    await confirmAction("Lift restriction", "Restrict");
    await access.getByRole("form", { name: "Lift restriction", exact: true }).waitFor({ state: "detached" });
    expect(await apiCode()).toBe("OK");
    await confirmAction("Block API access", "Unblock API access");
    expect(await apiCode()).toBe("API_DISABLED_BY_ADMIN");
    await confirmAction("Unblock API access", "Block API access");
    expect(await apiCode()).toBe("OK");

    const audit = await sql(
      `SELECT actor, action, details FROM audit_log WHERE target_type = 'account' AND target_id = $1 ORDER BY id`,
      [String(customer.accountId)],
    );
    expect(audit.map((entry) => [entry.actor, entry.action])).toEqual(
      [
        "account.ban",
        "account.unban",
        "account.restrict",
        "account.unrestrict",
        "account.api_block",
        "account.api_unblock",
      ].map((action) => [`admin:${ADMIN_EMAIL}`, action]),
    );
    expect(audit[0]!.details).toMatchObject({ reason: "chargeback fraud" });
    expect(audit[2]!.details).toMatchObject({ minutes: 24 * 60, reason: "too many retries" });
    // Nothing here moved money: the balance is the last ledger entry's running balance.
    const ledger = await sql(
      `SELECT balance_after_cents FROM ledger_entries WHERE account_id = $1 ORDER BY id DESC LIMIT 1`,
      [customer.accountId],
    );
    await page.reload();
    expect(await page.getByTestId("balance").textContent()).toBe(
      `$${(ledger[0]!.balance_after_cents / 100).toFixed(2)}`,
    );
    await page.goto("/admin/accounts");
    await screenshot(page, "09-accounts");
  });

  it("saves the API eligibility rule from its form, and the API obeys it", async () => {
    await page.goto("/admin/settings");
    const form = page.getByRole("form", { name: "Eligibility rule" });
    await form.getByRole("checkbox").check();
    await form.getByRole("textbox").first().fill("1000");
    await form.getByRole("button", { name: "Save rule…" }).click();
    await form.getByRole("button", { name: "Confirm: Save rule" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toContain("saved and enforced");
    await expect
      .poll(async () => (await api("/balance", { key: customer.key })).json.code, { timeout: 5_000 })
      .toBe("API_NOT_ELIGIBLE");
    expect((await sql(`SELECT value, updated_by FROM settings WHERE key = 'API_ELIGIBILITY'`))[0]).toEqual({
      value: { enabled: true, minTotalCreditedCents: 100_000 },
      updated_by: `admin:${ADMIN_EMAIL}`,
    });
    await form.getByRole("checkbox").uncheck();
    await form.getByRole("button", { name: "Save rule…" }).click();
    await form.getByRole("button", { name: "Confirm: Save rule" }).click();
    await expect.poll(async () => (await api("/balance", { key: customer.key })).status, { timeout: 5_000 }).toBe(200);
  });

  it("shows every admin action in the audit log with the admin's email", async () => {
    await page.goto(`/admin/audit?actor=${encodeURIComponent(`admin:${ADMIN_EMAIL}`)}`);
    const actions = await page
      .getByRole("table", { name: "Audit entries" })
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-action")));
    expect(actions.sort()).toEqual(
      [
        "account.ban",
        "account.unban",
        "account.restrict",
        "account.unrestrict",
        "account.api_block",
        "account.api_unblock",
        "inventory.import",
        "order.cancel_refund",
        "setting.set",
        "setting.set",
        "setting.set",
        "setting.set",
        "supplier.pause",
        "supplier.resume",
        // The admin turned two-factor on before signing in (beforeAll), as owners must.
        "admin_user.two_factor_on",
      ].sort(),
    );
    await screenshot(page, "10-audit");
    // Filtering by action prefix narrows it, as operators use it.
    await page.getByRole("link", { name: "account." }).click();
    await page.waitForURL("**/admin/audit?action=account.");
    expect(await page.getByRole("table", { name: "Audit entries" }).locator("tbody tr").count()).toBe(6);
  });

  it("charts the orders of the last 24 hours and 7 days exactly as the database has them", async () => {
    // Move two finished orders back in time so that more than one bucket holds data.
    await sql(
      `UPDATE orders SET created_at = created_at - interval '3 hours', finished_at = finished_at - interval '3 hours' WHERE public_id = $1`,
      [placed[0]!.orderId],
    );
    await sql(
      `UPDATE orders SET created_at = created_at - interval '2 days', finished_at = finished_at - interval '2 days' WHERE public_id = $1`,
      [placed[3]!.orderId],
    );
    // Nothing may change state between the page's reading and the test's.
    await expect
      .poll(
        async () => (await sqlRow(`SELECT count(*)::int AS n FROM orders WHERE status IN ('pending', 'processing')`)).n,
        { timeout: 10_000 },
      )
      .toBe(0);
    await page.goto("/admin");
    await screenshot(page, "02-overview");

    for (const range of ["24h", "7d"] as const) {
      const rows = await page
        .locator(`table[data-metrics="${range}"] tbody tr`)
        .evaluateAll((trs) => trs.map((tr) => ({ ...(tr as HTMLElement).dataset })));
      expect(rows).toHaveLength(range === "24h" ? 25 : 8);
      const buckets = rows.filter((row) => row.bucket !== "total");
      const step = range === "24h" ? 3_600_000 : 86_400_000;
      // An independent reading of the database: the same definitions (fulfilment times to 0.1 s),
      // computed per bucket in SQL over each bucket's exact bounds as the page printed them.
      for (const row of [...buckets, { ...rows.find((r) => r.bucket === "total")!, bucket: undefined }]) {
        const from = row.bucket ? new Date(row.bucket) : new Date(buckets[0]!.bucket!);
        const to = row.bucket
          ? new Date(from.getTime() + step)
          : new Date(new Date(buckets[buckets.length - 1]!.bucket!).getTime() + step);
        const expected = await sqlRow(
          `SELECT count(*)::int AS total,
                  count(*) FILTER (WHERE status = 'completed')::int AS completed,
                  count(*) FILTER (WHERE status = 'cancelled' AND order_created)::int AS cancelled,
                  count(*) FILTER (WHERE status = 'cancelled' AND NOT order_created)::int AS refused,
                  count(*) FILTER (WHERE status = 'processing')::int AS processing,
                  count(*) FILTER (WHERE status = 'pending')::int AS pending,
                  COALESCE(sum(amount_cents) FILTER (WHERE status = 'completed'), 0)::int AS revenue,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY round(extract(epoch FROM finished_at - created_at) * 10) / 10) FILTER (WHERE status = 'completed') AS p50
             FROM orders WHERE created_at >= $1 AND created_at < $2`,
          [from, to],
        );
        const label = `${range} ${row.bucket ?? "total"}`;
        expect(Number(row.total), label).toBe(expected.total);
        expect(Number(row.completed), label).toBe(expected.completed);
        expect(Number(row.cancelled), label).toBe(expected.cancelled);
        expect(Number(row.refused), label).toBe(expected.refused);
        expect(Number(row.processing) + Number(row.pending), label).toBe(expected.processing + expected.pending);
        expect(Number(row.revenueCents), label).toBe(expected.revenue);
        const finished = expected.completed + expected.cancelled;
        expect(row.successRate === "" ? null : Number(row.successRate), label).toBe(
          finished ? expected.completed / finished : null,
        );
        if (expected.p50 === null) expect(row.p50Seconds, label).toBe("");
        else expect(Number(row.p50Seconds), label).toBeCloseTo(Number(expected.p50), 6);
      }
      const nonEmpty = buckets.filter((row) => Number(row.total) > 0);
      expect(nonEmpty.length, range).toBeGreaterThanOrEqual(2);
    }

    // The bars say the same as the table: the tooltip of the current hour's column.
    const current = await sqlRow(
      `SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed FROM orders WHERE created_at >= date_trunc('hour', now())`,
    );
    const chart = page
      .getByRole("region", { name: "Last 24 hours, per hour (UTC)" })
      .getByRole("img", { name: "Orders by status" });
    const lastTooltip = await chart.locator("g > title").last().textContent();
    expect(lastTooltip).toContain(`completed: ${current.completed}`);
    expect(await page.getByTestId("awaiting-admin").textContent()).toContain(
      String(
        (
          await sqlRow(
            `SELECT count(*)::int AS n FROM orders WHERE needs_admin AND status IN ('pending', 'processing')`,
          )
        ).n,
      ),
    );
  });

  it("fits every page in a 1,280 px window: tables scroll inside their card, long values wrap", async () => {
    // Long unbroken values where they show: a supplier's refusal on an order, its page's JSON, an account's name.
    const long = await order(customer.key, { pid: "SVCBR60", trxid: `wide-${"W".repeat(59)}`, userId: "7100004" });
    expect(long.status).toBe(200);
    await waitTerminal(customer.key, long.json.orderId);
    const row = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [long.json.orderId]);
    await sql(`UPDATE orders SET error = $2 WHERE id = $1`, [row.id, `SUPPLIER ${"REFUSED".repeat(40)}`]);
    for (const pagePath of [
      ...everyPagePath({ orderId: row.id, accountId: customer.accountId }),
      "/admin/orders?q=7100",
    ]) {
      const response = await page.goto(pagePath);
      expect(response?.status(), pagePath).toBe(200);
      expect(await pageOverflow(page), `${pagePath} at ${DASHBOARD_WIDTH} px`).toEqual([]);
    }
  });

  it("signs out: the dashboard refuses the browser again", async () => {
    await page.goto("/admin");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/admin/login");
    expect((await context.cookies()).some((cookie) => cookie.name === "next-auth.session-token")).toBe(false);
    await page.goto("/admin/orders");
    expect(new URL(page.url()).pathname).toBe("/admin/login");
  });

  it("no page of the tests above broke the dashboard's Content-Security-Policy", () => {
    expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
  });
});
