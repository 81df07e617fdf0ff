// /admin/webhooks in Chromium: refused without a session; with one, it lists endpoints and
// deliveries with each attempt's answer, and an admin re-sends a delivery (audited), with no
// Content-Security-Policy violation on the way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { closePool } from "@/lib/db/pool";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { suiteBaseUrl } from "../helpers/suite";
import { enableTwoFactor } from "../helpers/two-factor";
import { closeSql, resetDatabase, sql, firstOf } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { findChromium, launchBrowser, newDashboardContext, pageProblems, screenshot, signIn } from "../helpers/browser";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { addEndpoint, deliverWebhook, DEV_POLICY, deliveriesOf, recordEvent } from "../helpers/webhooks";

const ADMIN_EMAIL = "hooks-admin@example.com";
const ADMIN_PASSWORD = "correct horse battery staple";
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[webhooks dashboard e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

describe.skipIf(!chromiumPath)("the webhooks page", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    await resetDatabase();
    expect(
      (await createAdminUser({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD, role: "owner", actor: "test" })).status,
    ).toBe("created");
    await enableTwoFactor(ADMIN_EMAIL);
    receiver = await WebhookReceiver.start();
    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await closePool();
    await closeSql();
  });

  it("is refused without a session", async () => {
    const res = await fetch(`${suiteBaseUrl()}/admin/webhooks`, { redirect: "manual" });
    expect(res.status).toBe(307);
    expect(new URL(res.headers.get("location")!, suiteBaseUrl()).pathname).toBe("/admin/login");
  });

  it("shows deliveries and their answers; Re-send queues a new delivery of the same event", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const event = await recordEvent(account.accountId, "endpoint.test", { n: 1 }, endpoint.endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    receiver.answerNext({ status: 500, body: "receiver exploded" });
    expect((await deliverWebhook(delivery.id, { policy: DEV_POLICY })).outcome).toBe("retrying");

    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`/admin/webhooks?account=${account.accountId}`);
    const endpoints = page.getByRole("table", { name: "Webhook endpoints" });
    expect(await endpoints.textContent()).toContain(receiver.url);
    const deliveries = page.getByRole("table", { name: "Webhook deliveries" });
    expect(await deliveries.textContent()).toContain(event.id);
    await deliveries.getByText("1 attempt(s)").click();
    expect(await deliveries.textContent()).toContain("receiver exploded");
    await screenshot(page, "webhooks");

    const form = page.getByRole("form", { name: `Re-send delivery ${delivery.id}` });
    await form.getByRole("button", { name: "Re-send" }).click();
    await form.getByRole("button", { name: "Confirm: Re-send" }).click();
    await expect.poll(async () => (await deliveriesOf(event.id)).length, { timeout: 15_000 }).toBe(2);
    await expect.poll(() => form.textContent().catch(() => "")).toMatch(/Queued as delivery #\d+\./);
    expect(await sql(`SELECT actor, action FROM audit_log WHERE action = 'webhook.redeliver'`)).toEqual([
      { actor: `admin:${ADMIN_EMAIL}`, action: "webhook.redeliver" },
    ]);
    expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
  });
});
