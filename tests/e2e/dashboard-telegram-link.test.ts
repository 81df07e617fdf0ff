// Linking a Telegram account from the dashboard, in Chromium against the real server, with the real
// bot against the local Bot API: an admin gets a one-time code under Your account, sends it to the bot
// with /link, and the bot then grants that admin's role; unlinking ends it at once. An owner sets the
// amount above which a credit needs a second admin on the Settings page (the bot's side of it is
// tests/integration/bot-roles.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { setLargeCreditThreshold } from "@/lib/settings/set-large-credit-threshold";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { findChromium, launchBrowser, newDashboardContext, pageProblems, signIn } from "../helpers/browser";
import { enableTwoFactor } from "../helpers/two-factor";
import { FakeTelegram, plain, startPollingBot, type FakeUser, type RunningBot } from "../helpers/fake-telegram";

const OWNER = "link-owner@example.com";
const PASSWORD = "the owner's long password";
const TELEGRAM_USER: FakeUser = { id: 4_800_000_001, first_name: "Olive" };
const HOLDER: FakeUser = { id: 4_800_000_002, first_name: "Hank", username: "hank_shop" };
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[telegram link e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

describe.skipIf(!chromiumPath)("Telegram link and the large-credit amount on the dashboard", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let fake: FakeTelegram;
  let bot: RunningBot;
  let secret: string;

  const say = async (user: FakeUser, text: string) => {
    const calls = await fake.send(user, text);
    return calls.filter((call) => Number(call.payload.chat_id) === user.id).map((call) => plain(call.payload.text));
  };

  beforeAll(async () => {
    await resetDatabase();
    expect((await createAdminUser({ email: OWNER, password: PASSWORD, role: "owner", actor: "test" })).status).toBe(
      "created",
    );
    ({ secret } = await enableTwoFactor(OWNER));
    fake = await FakeTelegram.start();
    bot = await startPollingBot(fake);
    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await bot?.stop();
    await fake?.close();
    await closeSql();
  });

  it("links with the page's one-time code, and unlinks", { timeout: 120_000 }, async () => {
    await say(HOLDER, "/start");
    expect(await say(TELEGRAM_USER, "/account @hank_shop")).toEqual(["Sorry, this command is only for admins."]);

    await signIn(page, OWNER, PASSWORD, { totpSecret: secret });
    await page.goto("/admin/account");
    const panel = page.getByRole("region", { name: "Telegram" });
    await expect.poll(() => panel.getByTestId("telegram-link-state").textContent()).toContain("not linked");
    const form = page.getByRole("form", { name: "Telegram link code" });
    await form.getByRole("button", { name: "Get a link code" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toContain("Send /link");
    const [code] = await form.getByRole("list", { name: "Shown once" }).getByRole("listitem").allTextContents();
    expect(code).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);
    // Stored only as a digest.
    expect(await sql(`SELECT 1 FROM admin_telegram_link_codes WHERE code_hash LIKE $1`, [`%${code}%`])).toEqual([]);

    expect(await say(TELEGRAM_USER, `/link ${code}`)).toEqual([
      `✅ Linked to admin ${OWNER} (role owner). Admin commands here follow that role; /help lists them. Unlink on the dashboard (Your account).`,
    ]);
    expect((await say(TELEGRAM_USER, "/account @hank_shop"))[0]).toContain("Account #");
    await page.reload();
    await expect
      .poll(() => panel.getByTestId("telegram-link-state").textContent())
      .toContain(`Telegram user ${TELEGRAM_USER.id}`);

    const unlink = page.getByRole("form", { name: "Unlink Telegram" });
    await unlink.getByRole("button", { name: "Unlink Telegram…" }).click();
    await unlink.getByRole("button", { name: "Confirm: Unlink Telegram" }).click();
    // The page shows the new state (the unlink form goes with the link).
    await expect.poll(() => panel.getByTestId("telegram-link-state").textContent()).toContain("not linked");
    expect(await say(TELEGRAM_USER, "/account @hank_shop")).toEqual(["Sorry, this command is only for admins."]);
    expect(
      (await sql(`SELECT action FROM audit_log WHERE target_type = 'admin_user' ORDER BY id`)).map((row) => row.action),
    ).toEqual(
      expect.arrayContaining([
        "admin_user.telegram_link_code",
        "admin_user.telegram_link",
        "admin_user.telegram_unlink",
      ]),
    );
    expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
    expect(pageProblems(context).consoleErrors, "console errors").toEqual([]);
  });

  it("an owner sets the large-credit amount on Settings", { timeout: 90_000 }, async () => {
    await page.goto("/admin/settings");
    const panel = page.getByRole("region", { name: "Large credits" });
    await expect.poll(() => panel.getByTestId("large-credit-threshold").textContent()).toContain("$1,000.00");
    const form = page.getByRole("form", { name: "Large credit amount" });
    await form.getByLabel("above $").fill("250");
    await form.getByRole("button", { name: "Save amount…" }).click();
    await form.getByRole("button", { name: "Confirm: Save amount" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toContain("credits above $250.00 need");
    expect(await sqlRow(`SELECT value, updated_by FROM settings WHERE key = 'LARGE_CREDIT_APPROVAL_CENTS'`)).toEqual({
      value: 25_000,
      updated_by: `admin:${OWNER}`,
    });

    // Another owner saves meanwhile: this page's form, opened before that save, is refused.
    await page.reload();
    await setLargeCreditThreshold(50_000, "admin:other-owner@example.com");
    await form.getByLabel("above $").fill("1");
    await form.getByRole("button", { name: "Save amount…" }).click();
    await form.getByRole("button", { name: "Confirm: Save amount" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toContain("Setting LARGE_CREDIT_APPROVAL_CENTS");
    expect((await sqlRow(`SELECT value FROM settings WHERE key = 'LARGE_CREDIT_APPROVAL_CENTS'`)).value).toBe(50_000);
  });
});
