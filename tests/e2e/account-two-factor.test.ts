// Your account's two-factor forms in Chromium against the real server: new recovery codes (a wrong
// code refused, the old codes stop working, the new ones shown once and signing in), and turning
// two-factor off (a wrong password and a wrong code refused and counted against the admin's second
// step, the password with a right code turns it off). Every change is in the audit log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { findChromium, launchBrowser, newDashboardContext, pageProblems, signIn } from "../helpers/browser";
import { enableTwoFactor, freshTotpCode } from "../helpers/two-factor";
import { signInOverHttp } from "../helpers/admin-session";

const EMAIL = "account-owner@example.com";
const PASSWORD = "the account owner's long password";
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[account two-factor e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

async function wrongCount(): Promise<number> {
  return (await sqlRow<{ n: number }>(`SELECT count(*)::int AS n FROM admin_second_factor_failures`)).n;
}

describe.skipIf(!chromiumPath)("Your account's two-factor forms in Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let secret: string;
  let oldCodes: string[];

  beforeAll(async () => {
    await resetDatabase();
    expect((await createAdminUser({ email: EMAIL, password: PASSWORD, role: "owner", actor: "test" })).status).toBe(
      "created",
    );
    ({ secret, recoveryCodes: oldCodes } = await enableTwoFactor(EMAIL));
    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
    await signIn(page, EMAIL, PASSWORD, { totpSecret: secret });
  });

  afterAll(async () => {
    await browser?.close();
    await closeSql();
  });

  it("gives new recovery codes for a right code only; the old ones stop working", { timeout: 90_000 }, async () => {
    await page.goto("/admin/account");
    const form = page.getByRole("form", { name: "New recovery codes" });
    const submit = async (code: string) => {
      await form.getByLabel("Current code").fill(code);
      await form.getByRole("button", { name: "New recovery codes…" }).click();
      await form.getByRole("button", { name: "Confirm: New recovery codes" }).click();
    };
    await submit("000000");
    await expect.poll(() => form.getByRole("status").textContent()).toContain("Wrong or used code");
    expect(await wrongCount()).toBe(1);

    await submit(await freshTotpCode(EMAIL, secret));
    await expect.poll(() => form.getByRole("status").textContent()).toContain("the old ones no longer work");
    const fresh = await form.getByRole("list", { name: "Shown once" }).getByRole("listitem").allTextContents();
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((code) => oldCodes.includes(code))).toEqual([]);

    expect((await signInOverHttp({ email: EMAIL, password: PASSWORD, code: oldCodes[0] })).error).toBe(
      "CredentialsSignin",
    );
    expect((await signInOverHttp({ email: EMAIL, password: PASSWORD, code: fresh[0] })).sessionCookie).toBeDefined();
    await page.reload();
    expect(await page.getByTestId("two-factor-state").textContent()).toContain("9 unused");
    expect(await sql(`SELECT details FROM audit_log WHERE action = 'admin_user.recovery_codes_regenerated'`)).toEqual([
      { details: { email: EMAIL, with: "totp", recoveryCodes: 10 } },
    ]);
  });

  it("turns two-factor off with the password and a right code only", { timeout: 90_000 }, async () => {
    await page.goto("/admin/account");
    const form = page.getByRole("form", { name: "Turn two-factor off" });
    const submit = async (password: string, code: string) => {
      await form.getByLabel("Password").fill(password);
      await form.getByLabel("Current code or a recovery code").fill(code);
      await form.getByRole("button", { name: "Turn two-factor off…" }).click();
      await form.getByRole("button", { name: "Confirm: Turn two-factor off" }).click();
    };
    const before = await wrongCount();
    await submit("not the password", await freshTotpCode(EMAIL, secret));
    await expect.poll(() => form.getByRole("status").textContent()).toContain("Wrong password");
    await submit(PASSWORD, "000000");
    await expect.poll(() => form.getByRole("status").textContent()).toContain("Wrong or used code");
    expect(await wrongCount()).toBe(before + 2);
    expect(
      (await sqlRow(`SELECT totp_enabled_at FROM admin_users WHERE email = $1`, [EMAIL])).totp_enabled_at,
    ).not.toBeNull();

    await submit(PASSWORD, await freshTotpCode(EMAIL, secret));
    await expect
      .poll(() => sqlRow(`SELECT totp_secret FROM admin_users WHERE email = $1`, [EMAIL]))
      .toEqual({
        totp_secret: null,
      });
    expect(await sql(`SELECT details FROM audit_log WHERE action = 'admin_user.two_factor_off'`)).toEqual([
      { details: { email: EMAIL, with: "totp" } },
    ]);
    expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
  });
});
