// Your account and the Admins page in Chromium against the real server: an owner without two-factor
// is told to set it up, sets it up from the QR code's secret and gets ten recovery codes once; then
// invites an operator (whose generated password signs in), changes their role, disables them (their
// session ends at once), and cannot demote the last owner. Every change is in the audit log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { baseUrl } from "../helpers/api";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { findChromium, launchBrowser, newDashboardContext, pageProblems, screenshot, signIn } from "../helpers/browser";
import { freshTotpCode } from "../helpers/two-factor";
import { signInOverHttp } from "../helpers/admin-session";

const OWNER = "owner@example.com";
const OWNER_PASSWORD = "the owner's long password";
const INVITED = "invited@example.com";
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[dashboard admins e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

/** GET a dashboard page with a session cookie, without following redirects. */
function getPage(pagePath: string, cookie: string) {
  return fetch(baseUrl() + pagePath, { redirect: "manual", headers: { cookie } });
}

describe.skipIf(!chromiumPath)("Your account and the Admins page in Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    await resetDatabase();
    expect(
      (await createAdminUser({ email: OWNER, password: OWNER_PASSWORD, role: "owner", actor: "test" })).status,
    ).toBe("created");
    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await closeSql();
  });

  it(
    "tells an owner without two-factor to set it up, and sets it up from the page's secret",
    { timeout: 90_000 },
    async () => {
      await signIn(page, OWNER, OWNER_PASSWORD);
      expect(await page.getByTestId("two-factor-banner").textContent()).toContain("need two-factor");
      await page.goto("/admin/admins");
      expect(await page.getByRole("form", { name: "Invite an admin" }).count()).toBe(0);

      await page.getByTestId("two-factor-banner").getByRole("link", { name: "Set up two-factor" }).click();
      await page.waitForURL((url) => url.pathname === "/admin/account");
      await page.getByRole("button", { name: "Set up two-factor" }).click();
      const secret = (await page.getByTestId("totp-secret").textContent())!;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(await page.getByRole("img", { name: "QR code of the two-factor secret" }).getAttribute("src")).toMatch(
        /^data:image\/svg\+xml;base64,/,
      );
      await screenshot(page, "account-two-factor-setup");

      const confirm = page.getByRole("form", { name: "Confirm two-factor" });
      await confirm.getByLabel("Code").fill(await freshTotpCode(OWNER, secret));
      await confirm.getByRole("button", { name: "Turn two-factor on" }).click();
      await expect.poll(() => confirm.getByRole("status").textContent()).toContain("Two-factor is on");
      const codes = await confirm.getByRole("list", { name: "Shown once" }).getByRole("listitem").allTextContents();
      expect(codes).toHaveLength(10);
      for (const code of codes) expect(code).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
      expect(
        (await sqlRow(`SELECT totp_enabled_at FROM admin_users WHERE email = $1`, [OWNER])).totp_enabled_at,
      ).not.toBeNull();

      await page.reload();
      expect(await page.getByTestId("two-factor-state").textContent()).toContain("10 unused");
      expect(await page.getByTestId("two-factor-banner").count()).toBe(0);
      expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
    },
  );

  it(
    "invites an admin, changes their role, disables them (their session ends), and keeps the last owner",
    { timeout: 90_000 },
    async () => {
      await page.goto("/admin/admins");
      const invite = page.getByRole("form", { name: "Invite an admin" });
      await invite.getByLabel("Email").fill(INVITED);
      await invite.getByLabel("Role").selectOption("operator");
      await invite.getByRole("button", { name: "Invite…" }).click();
      await invite.getByRole("button", { name: "Confirm: Invite" }).click();
      await expect.poll(() => invite.getByRole("status").textContent()).toContain(`${INVITED} can sign in as operator`);
      const [password] = await invite.getByRole("list", { name: "Shown once" }).getByRole("listitem").allTextContents();
      expect(password).toMatch(/^[A-Za-z2-9]{24}$/);

      // The invited operator signs in with that password.
      const invited = await signInOverHttp({ email: INVITED, password: password! });
      expect(invited.sessionCookie).toBeDefined();
      const cookie = invited.sessionCookie!;
      expect(await (await getPage("/admin/account", cookie)).text()).toContain(INVITED);

      const row = page.locator(`tr[data-admin="${INVITED}"]`);
      await row.waitFor();
      expect(await row.getByTestId("role").textContent()).toBe("operator");
      const roleForm = row.getByRole("form", { name: `Role of ${INVITED}` });
      await roleForm.getByLabel("Role").selectOption("viewer");
      await roleForm.getByRole("button", { name: "Change role…" }).click();
      await roleForm.getByRole("button", { name: "Confirm: Change role" }).click();
      await expect.poll(() => roleForm.getByRole("status").textContent()).toContain("is now viewer (was operator)");
      expect((await sqlRow(`SELECT role FROM admin_users WHERE email = $1`, [INVITED])).role).toBe("viewer");

      const disable = row.getByRole("form", { name: `Disable ${INVITED}` });
      await disable.getByRole("button", { name: "Disable…" }).click();
      await disable.getByRole("button", { name: "Confirm: Disable" }).click();
      await expect.poll(() => row.getByTestId("state").textContent()).toBe("disabled");
      // Their session ends at once: the next page sends them to sign in.
      const after = await getPage("/admin", cookie);
      expect(after.status).toBe(307);
      expect(new URL(after.headers.get("location")!, baseUrl()).pathname).toBe("/admin/login");

      // The only owner cannot demote themselves.
      const own = page.locator(`tr[data-admin="${OWNER}"]`).getByRole("form", { name: `Role of ${OWNER}` });
      await own.getByLabel("Role").selectOption("viewer");
      await own.getByRole("button", { name: "Change role…" }).click();
      await own.getByRole("button", { name: "Confirm: Change role" }).click();
      await expect.poll(() => own.getByRole("status").textContent()).toContain("last active owner");
      expect((await sqlRow(`SELECT role FROM admin_users WHERE email = $1`, [OWNER])).role).toBe("owner");
      await screenshot(page, "admins");

      expect(
        await sql(
          `SELECT actor, action, details FROM audit_log WHERE action LIKE 'admin_user.%' AND actor <> 'test' ORDER BY id`,
        ),
      ).toEqual([
        { actor: `admin:${OWNER}`, action: "admin_user.two_factor_on", details: { email: OWNER, recoveryCodes: 10 } },
        { actor: `admin:${OWNER}`, action: "admin_user.create", details: { email: INVITED, role: "operator" } },
        {
          actor: `admin:${OWNER}`,
          action: "admin_user.role",
          details: { email: INVITED, from: "operator", to: "viewer" },
        },
        { actor: `admin:${OWNER}`, action: "admin_user.disable", details: { email: INVITED, role: "viewer" } },
      ]);
      expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
      expect(pageProblems(context).consoleErrors, "console errors").toEqual([]);
    },
  );
});
