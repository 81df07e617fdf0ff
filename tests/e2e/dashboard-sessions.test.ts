// Dashboard sessions in Chromium against the real server, with session cookies as the server issues
// them (signed with the suite's NEXTAUTH_SECRET, tests/helpers/admin-session.ts) for sessions of an
// age the test cannot wait for: a session that signed in without the second factor runs no owner
// action even once the owner has two-factor on; a role change 16 minutes after the second factor
// answers the step-up prompt, whose code lets the change through; a session polled up to its
// absolute lifetime ends there, its cookie never set to outlive it; an idle one is refused; a session
// whose admin is disabled or whose two-factor is reset ends, and stays ended once they are back.
import fs from "node:fs";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { resetAdminTwoFactor } from "@/lib/admin-users/reset-admin-two-factor";
import { setAdminDisabled } from "@/lib/admin-users/set-admin-disabled";
import { SESSION_ABSOLUTE_LIFETIME_SECONDS } from "@/lib/admin-sign-in/session-policy";
import { suiteBaseUrl } from "../helpers/suite";
import { closeSql, resetDatabase, sqlRow } from "../helpers/db";
import { findChromium, launchBrowser, newDashboardContext, pageProblems, screenshot } from "../helpers/browser";
import { enableTwoFactor, freshTotpCode } from "../helpers/two-factor";
import { mintSessionCookie } from "../helpers/admin-session";
import { TEST_ENV } from "../setup/test-env";
import { dashboardActions, postActionForm, SERVER_REFERENCE_MANIFEST } from "../helpers/dashboard-actions";

const OWNER = "session-owner@example.com";
const OPERATOR = "session-operator@example.com";
const PASSWORD = "a long enough test password";
const chromiumPath = findChromium();
const built = fs.existsSync(SERVER_REFERENCE_MANIFEST);
if (!chromiumPath)
  console.log("[dashboard sessions e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");
else if (!built) console.log("[dashboard sessions e2e] skipped: no Next build (.next); run `npm run build` first");

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A browser context holding `cookie` ("name=value") for the test server. */
async function contextWith(browser: Browser, cookie: string): Promise<BrowserContext> {
  const context = await newDashboardContext(browser);
  const [name, ...value] = cookie.split("=");
  await context.addCookies([
    { name: name!, value: value.join("="), url: suiteBaseUrl(), httpOnly: true, sameSite: "Lax" },
  ]);
  return context;
}

async function roleOf(email: string): Promise<string> {
  return (await sqlRow<{ role: string }>(`SELECT role FROM admin_users WHERE email = $1`, [email])).role;
}

describe.skipIf(!chromiumPath || !built)("dashboard sessions in Chromium", () => {
  let browser: Browser;
  let secret: string;

  beforeAll(async () => {
    await resetDatabase();
    for (const [email, role] of [
      [OWNER, "owner"],
      [OPERATOR, "operator"],
    ] as const)
      expect((await createAdminUser({ email, password: PASSWORD, role, actor: "test" })).status).toBe("created");
    ({ secret } = await enableTwoFactor(OWNER));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await closeSql();
  });

  it(
    "refuses every owner action to a session that signed in without the second factor",
    { timeout: 60_000 },
    async () => {
      // As a session opened with the password before the owner turned two-factor on looks.
      const cookie = await mintSessionCookie({ email: OWNER, secondFactorAt: null });
      const context = await contextWith(browser, cookie);
      const page = await context.newPage();
      await page.goto("/admin/admins");
      expect(new URL(page.url()).pathname).toBe("/admin/two-factor-setup");
      expect(await page.getByTestId("sign-in-again").textContent()).toContain("signed in without it");
      expect(await page.getByRole("form", { name: `Role of ${OPERATOR}` }).count()).toBe(0);

      // The action itself, posted as a hand-made request with that cookie, refuses too.
      const action = dashboardActions({ orderId: 1, accountId: 1 }).find((a) => a.name === "setAdminRoleAction")!;
      const { id } = await sqlRow<{ id: number }>(`SELECT id FROM admin_users WHERE email = $1`, [OPERATOR]);
      const res = await postActionForm(action, { adminId: String(id), role: "viewer", confirmed: "yes" }, { cookie });
      expect(await res.text()).toContain("This session signed in without a second factor");
      expect(await roleOf(OPERATOR)).toBe("operator");
      await context.close();
    },
  );

  it(
    "asks for a code before a role change 16 minutes after the second factor, then makes it",
    { timeout: 90_000 },
    async () => {
      const sixteenMinutesAgo = nowSeconds() - 16 * 60;
      const context = await contextWith(
        browser,
        await mintSessionCookie({ email: OWNER, signedInAt: sixteenMinutesAgo }),
      );
      const page: Page = await context.newPage();
      await page.goto("/admin/admins");
      const row = page.locator(`tr[data-admin="${OPERATOR}"]`);
      const roleForm = row.getByRole("form", { name: `Role of ${OPERATOR}` });
      const changeRole = async () => {
        await roleForm.getByLabel("Role").selectOption("viewer");
        await roleForm.getByRole("button", { name: "Change role…" }).click();
        await roleForm.getByRole("button", { name: "Confirm: Change role" }).click();
      };
      await changeRole();
      await expect
        .poll(() => roleForm.getByRole("status").textContent())
        .toContain("needs your two-factor code from the last 15 minutes");
      expect(await roleOf(OPERATOR)).toBe("operator");

      const stepUp = row.getByRole("form", { name: "Confirm with two-factor" });
      await stepUp.getByLabel("Two-factor code").fill("000000");
      await stepUp.getByRole("button", { name: "Confirm with two-factor" }).click();
      await expect.poll(() => stepUp.getByRole("status").textContent()).toContain("Wrong or used code");
      await screenshot(page, "step-up-prompt");
      await stepUp.getByLabel("Two-factor code").fill(await freshTotpCode(OWNER, secret));
      await stepUp.getByRole("button", { name: "Confirm with two-factor" }).click();
      await expect.poll(() => row.getByText("Code accepted for 15 minutes").count()).toBe(1);
      expect(await roleOf(OPERATOR)).toBe("operator");

      await changeRole();
      await expect.poll(() => roleForm.getByRole("status").textContent()).toContain("is now viewer (was operator)");
      expect(await roleOf(OPERATOR)).toBe("viewer");
      expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
      await context.close();
    },
  );

  it(
    "ends a session at its absolute lifetime while it is polled, its cookie never outliving it",
    { timeout: 90_000 },
    async () => {
      // Signed in 12 hours ago but for 20 seconds.
      const signedInAt = nowSeconds() - SESSION_ABSOLUTE_LIFETIME_SECONDS + 20;
      const deadline = signedInAt + SESSION_ABSOLUTE_LIFETIME_SECONDS;
      const context = await contextWith(browser, await mintSessionCookie({ email: OWNER, signedInAt }));
      const page = await context.newPage();
      // The Expires of every session cookie the server re-issues. Not the browser's copy: Chromium
      // shifts an Expires by the clock skew it reads off the Date header (whole seconds), so its copy
      // can end a second or more later than the server said when an answer is slow to arrive.
      const issued: Promise<number[]>[] = [];
      page.on("response", (response) => {
        if (new URL(response.url()).pathname === "/api/auth/session")
          issued.push(
            response
              .headersArray()
              .then((headers) =>
                headers
                  .filter(
                    ({ name, value }) =>
                      name.toLowerCase() === "set-cookie" && value.startsWith("next-auth.session-token="),
                  )
                  .map(({ value }) => Date.parse(/;\s*expires=([^;]*)/i.exec(value)?.[1] ?? "") / 1000),
              ),
          );
      });
      await page.goto("/admin");
      expect(await page.getByTestId("signed-in-as").textContent()).toBe(OWNER);

      const answers: { at: number; user: boolean }[] = [];
      while (nowSeconds() < deadline + 30) {
        const session = await page.evaluate(async () => {
          const res = await fetch("/api/auth/session", { cache: "no-store" });
          return (await res.json()) as { user?: { email?: string } };
        });
        answers.push({ at: nowSeconds(), user: Boolean(session.user) });
        if (!session.user) break;
        await page.waitForTimeout(2_000);
      }
      const last = answers.at(-1)!;
      expect(last.user, "the session ended while polled").toBe(false);
      expect(last.at).toBeGreaterThanOrEqual(deadline);
      expect(answers.filter((a) => a.at < deadline - 1).every((a) => a.user)).toBe(true);
      const expiries = (await Promise.all(issued)).flat();
      expect(expiries.length, "session cookies re-issued while polled").toBeGreaterThan(0);
      expect(
        expiries.filter((expires) => !(expires <= deadline)),
        "re-issued past the deadline",
      ).toEqual([]);
      await page.goto("/admin");
      expect(new URL(page.url()).pathname).toBe("/admin/login");
      await context.close();
    },
  );

  /** Where the dashboard sends `cookie`'s holder: null when the page opens. */
  async function sentTo(cookie: string): Promise<string | null> {
    const answer = await fetch(`${suiteBaseUrl()}/admin/orders`, { redirect: "manual", headers: { cookie } });
    if (answer.status === 200) return null;
    expect(answer.status).toBe(307);
    return new URL(answer.headers.get("location")!, suiteBaseUrl()).pathname;
  }

  async function viewerWithTwoFactor(email: string): Promise<number> {
    expect((await createAdminUser({ email, password: PASSWORD, role: "viewer", actor: "test" })).status).toBe(
      "created",
    );
    await enableTwoFactor(email);
    return (await sqlRow<{ id: number }>(`SELECT id FROM admin_users WHERE email = $1`, [email])).id;
  }

  it("ends a session once its admin's two-factor is reset, for good: enrolled anew, the old one stays out", async () => {
    const email = "session-reset@example.com";
    const id = await viewerWithTwoFactor(email);
    const cookie = await mintSessionCookie({ email, signedInAt: nowSeconds() - 60 });
    expect(await sentTo(cookie)).toBeNull();
    expect((await resetAdminTwoFactor({ adminId: id, actor: `admin:${OWNER}` })).status).toBe("reset");
    expect(await sentTo(cookie)).toBe("/admin/login");
    // The admin enrols on a new device (a new sign-in): their new session opens, the old one not.
    await enableTwoFactor(email);
    expect(await sentTo(cookie)).toBe("/admin/login");
    expect(await sentTo(await mintSessionCookie({ email, signedInAt: nowSeconds() + 1 }))).toBeNull();
  });

  it("ends a session once its admin is disabled, for good: enabled again, the old one stays out", async () => {
    const email = "session-disabled@example.com";
    const id = await viewerWithTwoFactor(email);
    const ownerId = (await sqlRow<{ id: number }>(`SELECT id FROM admin_users WHERE email = $1`, [OWNER])).id;
    const cookie = await mintSessionCookie({ email, signedInAt: nowSeconds() - 60 });
    expect(await sentTo(cookie)).toBeNull();
    for (const disabled of [true, false])
      expect(
        (await setAdminDisabled({ adminId: id, disabled, byAdminId: ownerId, actor: `admin:${OWNER}` })).status,
      ).toBe("changed");
    expect(await sentTo(cookie)).toBe("/admin/login");
    expect(await sentTo(await mintSessionCookie({ email, signedInAt: nowSeconds() + 1 }))).toBeNull();
  });

  it("refuses a session past its lifetime and an idle one, over plain HTTP", async () => {
    for (const [what, cookie] of [
      [
        "signed in 12 hours and a second ago",
        await mintSessionCookie({ email: OWNER, signedInAt: nowSeconds() - SESSION_ABSOLUTE_LIFETIME_SECONDS - 1 }),
      ],
      ["idle past its timeout", await mintSessionCookie({ email: OWNER, expiresIn: -60 })],
      [
        "without a sign-in time (issued before sessions carried it)",
        `next-auth.session-token=${await encode({ token: { email: OWNER }, secret: TEST_ENV.NEXTAUTH_SECRET! })}`,
      ],
    ] as const) {
      const session = await fetch(`${suiteBaseUrl()}/api/auth/session`, { headers: { cookie } });
      expect(await session.json(), what).toEqual({});
      const page = await fetch(`${suiteBaseUrl()}/admin`, { redirect: "manual", headers: { cookie } });
      expect(page.status, what).toBe(307);
      expect(new URL(page.headers.get("location")!, suiteBaseUrl()).pathname, what).toBe("/admin/login");
    }
  });
});
