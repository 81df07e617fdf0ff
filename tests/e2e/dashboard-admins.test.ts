// The enrolment and the Admins page in Chromium against the real server: an owner without two-factor
// (as admin:create makes one) who signs in with the password reaches no dashboard page but the
// enrolment, which asks for the password again, shows the secret as a QR code and text, turns
// two-factor on with a code from it and shows ten recovery codes once; then the owner invites an
// operator (whose generated password leads to the enrolment too), changes their role, disables them
// (their session ends at once), and cannot demote the last owner. Every change is in the audit log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { suiteBaseUrl } from "../helpers/suite";
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
  return fetch(suiteBaseUrl() + pagePath, { redirect: "manual", headers: { cookie } });
}

/** Every page of the dashboard's console. */
const CONSOLE_PAGES = [
  "/admin",
  "/admin/orders",
  "/admin/accounts",
  "/admin/catalog",
  "/admin/tiers",
  "/admin/suppliers",
  "/admin/settings",
  "/admin/webhooks",
  "/admin/audit",
  "/admin/admins",
  "/admin/account",
];

/** Where each console page sends the session: the enrolment, for a session without a second factor. */
async function expectOnlyEnrolment(cookie: string): Promise<void> {
  for (const pagePath of CONSOLE_PAGES) {
    const res = await getPage(pagePath, cookie);
    expect(res.status, pagePath).toBe(307);
    expect(new URL(res.headers.get("location")!, suiteBaseUrl()).pathname, pagePath).toBe("/admin/two-factor-setup");
  }
}

describe.skipIf(!chromiumPath)("The enrolment and the Admins page in Chromium", () => {
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
    "sends an owner with only a password to the enrolment and nowhere else; the password again, then a code, turn two-factor on",
    { timeout: 90_000 },
    async () => {
      await signIn(page, OWNER, OWNER_PASSWORD, { landing: "/admin/two-factor-setup" });
      for (const pagePath of CONSOLE_PAGES) {
        await page.goto(pagePath);
        expect(new URL(page.url()).pathname, pagePath).toBe("/admin/two-factor-setup");
      }
      expect(await page.getByTestId("signed-in-as").count()).toBe(0);
      const session = (await context.cookies()).find((cookie) => cookie.name === "next-auth.session-token")!;
      await expectOnlyEnrolment(`${session.name}=${session.value}`);

      // The password again: a wrong one shows no secret.
      const password = page.getByRole("form", { name: "Confirm your password" });
      await password.getByLabel("Password").fill("not the password");
      await password.getByRole("button", { name: "Set up two-factor" }).click();
      await expect.poll(() => password.getByRole("status").textContent()).toContain("Wrong password");
      expect(await page.getByTestId("totp-secret").count()).toBe(0);
      await password.getByLabel("Password").fill(OWNER_PASSWORD);
      await password.getByRole("button", { name: "Set up two-factor" }).click();
      await page.getByTestId("totp-secret").waitFor();
      const secret = (await page.getByTestId("totp-secret").textContent())!;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(await page.getByRole("img", { name: "QR code of the two-factor secret" }).getAttribute("src")).toMatch(
        /^data:image\/svg\+xml;base64,/,
      );
      await screenshot(page, "two-factor-enrolment");

      const confirm = page.getByRole("form", { name: "Confirm two-factor" });
      await confirm.getByLabel("Code").fill(await freshTotpCode(OWNER, secret));
      await confirm.getByRole("button", { name: "Turn two-factor on" }).click();
      const codes = page.getByRole("list", { name: "Shown once" }).getByRole("listitem");
      await expect.poll(() => codes.count()).toBe(10);
      for (const code of await codes.allTextContents()) expect(code).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
      expect(
        (await sqlRow(`SELECT totp_enabled_at FROM admin_users WHERE email = $1`, [OWNER])).totp_enabled_at,
      ).not.toBeNull();

      // The session is now one with the second factor: the dashboard opens.
      await page.getByRole("link", { name: "Continue to the dashboard" }).click();
      await page.waitForURL((url) => url.pathname === "/admin");
      expect(await page.getByTestId("signed-in-as").textContent()).toBe(OWNER);
      await page.goto("/admin/account");
      expect(await page.getByTestId("two-factor-state").textContent()).toContain("10 unused");
      // The recovery codes were shown once: the enrolment now only says two-factor is on.
      await page.goto("/admin/two-factor-setup");
      expect(await page.getByTestId("two-factor-state").textContent()).toContain("Two-factor is on");
      expect(await page.getByRole("list", { name: "Shown once" }).count()).toBe(0);
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
      expect(await invite.getByRole("status").textContent()).toContain("first sign-in sets up two-factor");
      const [password] = await invite.getByRole("list", { name: "Shown once" }).getByRole("listitem").allTextContents();
      expect(password).toMatch(/^[A-Za-z2-9]{24}$/);

      // The invited operator signs in with that password, and reaches the enrolment alone.
      const invited = await signInOverHttp({ email: INVITED, password: password! });
      expect(invited.sessionCookie).toBeDefined();
      const cookie = invited.sessionCookie!;
      await expectOnlyEnrolment(cookie);
      expect(await (await getPage("/admin/two-factor-setup", cookie)).text()).toContain(INVITED);

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
      expect(new URL(after.headers.get("location")!, suiteBaseUrl()).pathname).toBe("/admin/login");

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
