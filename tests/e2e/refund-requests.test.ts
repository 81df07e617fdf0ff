// Refund requests end to end: an owner sets a line's refund window on the Catalog page; a holder's
// completed gift-card orders are asked back through the API; an operator refunds one in part
// (its codes revoked, never back in stock) and declines the other on the Refunds page, in Chromium.
// The invoice and GET /orders/{orderId} follow the request's state, the wallet gets the part back
// once, and the webhook events (requested, refunded, declined) reach a local receiver signed, each
// verified with the standardwebhooks package. Two admins deciding the same request at once decide
// it once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { closePool } from "@/lib/db/pool";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import type { RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { startLocalWebhooksWorker } from "../helpers/local-webhooks-worker";
import { decideRefundRequest } from "@/lib/refunds/sql/decide-refund-request";
import { api } from "../helpers/api";
import { enableTwoFactor } from "../helpers/two-factor";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { findChromium, launchBrowser, newDashboardContext, pageProblems, signIn } from "../helpers/browser";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { addEndpoint } from "../helpers/webhooks";

const ADMIN_EMAIL = "refunds-admin@example.com";
const ADMIN_PASSWORD = "correct horse battery staple";
const REFUND_EVENTS = ["order.refund_requested", "order.refunded", "order.refund_declined"];
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[refund requests e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

async function balanceCents(accountId: number): Promise<number> {
  return (await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents;
}

describe.skipIf(!chromiumPath)("refund requests", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: WebhookReceiver;
  let worker: RunningWorker;

  beforeAll(async () => {
    await resetDatabase();
    await seedDemoCatalog();
    expect(
      (await createAdminUser({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD, role: "operator", actor: "test" })).status,
    ).toBe("created");
    await createAdminUser({ email: "owner@example.com", password: ADMIN_PASSWORD, role: "owner", actor: "test" });
    await enableTwoFactor(ADMIN_EMAIL);
    await enableTwoFactor("owner@example.com");
    receiver = await WebhookReceiver.start();
    worker = await startLocalWebhooksWorker({
      concurrency: 2,
      webhookConcurrency: 2,
    });
    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await receiver?.close();
    await closePool();
    await closeSql();
  });

  it("asked through the API, refunded in part and declined on the dashboard, with signed webhooks", async () => {
    const holder = await createAccount({ balanceCents: 10_000 });
    const endpoint = await addEndpoint(holder.accountId, receiver.url, REFUND_EVENTS);

    // Without a window the line takes no request.
    const placeGift = async (pid: string, quantity: number) => {
      const placed = await order(holder.key, { pid, trxid: newTrxid("refund"), quantity });
      expect(placed.status, placed.text).toBe(200);
      const done = await api(`/orders/${placed.json.orderId}?wait=30`, { key: holder.key });
      expect(done.json.status).toBe("completed");
      expect(done.json.codes).toHaveLength(quantity);
      return done.json;
    };
    const early = await placeGift("SVCGC10", 1);
    const refused = await api(`/orders/${early.orderId}/refund-request`, {
      key: holder.key,
      body: { reason: "too early" },
    });
    expect(refused.json.code).toBe("REFUND_NOT_AVAILABLE");

    // The owner opens a 48 h window on the gift-card line.
    await signIn(page, "owner@example.com", ADMIN_PASSWORD);
    await page.goto("/admin/catalog");
    const windowForm = page.getByRole("form", { name: "Refund window of giftcards" });
    await windowForm.getByLabel(/Refund requests for/).fill("48");
    await windowForm.getByRole("button", { name: "Set refund window" }).click();
    await windowForm.getByRole("button", { name: "Confirm: Set refund window" }).click();
    await expect.poll(() => windowForm.textContent(), { timeout: 15_000 }).toContain("takes refund requests for 48 h");
    await context.clearCookies();

    const partial = await placeGift("SVCGC10", 2);
    const declined = await placeGift("SVCGC25", 1);
    const askedBalance = await balanceCents(holder.accountId);
    for (const [invoice, reason] of [
      [partial, "One of the two cards was already redeemed"],
      [declined, "Changed my mind"],
    ] as const) {
      const asked = await api(`/orders/${invoice.orderId}/refund-request`, { key: holder.key, body: { reason } });
      expect(asked.status, asked.text).toBe(200);
      expect(asked.json.refundRequest).toMatchObject({ status: "requested", reason });
    }

    // The operator decides both on the Refunds page.
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto("/admin/refunds");
    const [partialRequest, declinedRequest] = await sql(
      `SELECT r.id FROM refund_requests r JOIN orders o ON o.id = r.order_id WHERE o.public_id = ANY($1) ORDER BY r.id`,
      [[partial.orderId, declined.orderId]],
    );
    const refundForm = page.getByRole("form", { name: `Refund request ${partialRequest!.id}: refund` });
    await refundForm.getByLabel(/Amount, USD/).fill("10.00");
    await refundForm.getByPlaceholder("Note to the holder (optional)").fill("One card refunded");
    await refundForm.getByRole("button", { name: "Refund" }).click();
    await refundForm.getByRole("button", { name: "Confirm: Refund" }).click();
    // Decided, the request leaves the open ones for the decided table.
    const decidedTable = page.getByRole("table", { name: "Decided refund requests" });
    await expect
      .poll(() => decidedTable.textContent().catch(() => ""), { timeout: 15_000 })
      .toMatch(new RegExp(`${partial.orderId}refunded\\$10\\.00One card refunded`));
    const declineForm = page.getByRole("form", { name: `Refund request ${declinedRequest!.id}: decline` });
    await declineForm.getByPlaceholder("Why (shown to the holder)").fill("The card was redeemed");
    await declineForm.getByRole("button", { name: "Decline" }).click();
    await declineForm.getByRole("button", { name: "Confirm: Decline" }).click();
    await expect
      .poll(() => decidedTable.textContent().catch(() => ""), { timeout: 15_000 })
      .toMatch(new RegExp(`${declined.orderId}declined—The card was redeemed`));
    expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);

    // The invoices follow; the refunded codes are revoked, not back in stock.
    const afterPartial = (await api(`/orders/${partial.orderId}`, { key: holder.key })).json;
    expect(afterPartial).toMatchObject({
      status: "completed",
      refundRequest: { status: "refunded", refundedUsd: 10, note: "One card refunded" },
    });
    expect(afterPartial).not.toHaveProperty("codes");
    const afterDeclined = (await api(`/orders/${declined.orderId}`, { key: holder.key })).json;
    expect(afterDeclined).toMatchObject({ refundRequest: { status: "declined", note: "The card was redeemed" } });
    expect(afterDeclined.codes).toHaveLength(1);
    const codes = await sql(
      `SELECT c.status::text FROM inventory_codes c JOIN orders o ON o.id = c.order_id WHERE o.public_id = $1`,
      [partial.orderId],
    );
    expect(codes).toEqual([{ status: "revoked" }, { status: "revoked" }]);
    expect(await balanceCents(holder.accountId)).toBe(askedBalance + 1000);

    // Each event reached the receiver signed with the endpoint's secret.
    const verifier = new Webhook(endpoint.secret);
    const expected = [
      `order.refund_requested ${partial.orderId}`,
      `order.refund_requested ${declined.orderId}`,
      `order.refunded ${partial.orderId}`,
      `order.refund_declined ${declined.orderId}`,
    ];
    const verified = () =>
      receiver.received.map((hook) => {
        const event = verifier.verify(hook.body, hook.headers) as { type: string; data: { orderId: string } };
        return `${event.type} ${event.data.orderId}`;
      });
    await expect.poll(() => verified().sort(), { timeout: 30_000, interval: 100 }).toEqual(expected.sort());
    const refundedEvent = receiver.received
      .map((hook) => JSON.parse(hook.body))
      .find((event) => event.type === "order.refunded");
    expect(refundedEvent.data.refundRequest).toMatchObject({ status: "refunded", refundedUsd: 10 });
    await expectBooksBalance();
  }, 180_000);

  it("two admins deciding one request at once: one decision, one refund", async () => {
    const holder = await createAccount({ balanceCents: 10_000 });
    const placed = await order(holder.key, { pid: "SVCGC10", trxid: newTrxid("twice"), quantity: 1 });
    expect((await api(`/orders/${placed.json.orderId}?wait=30`, { key: holder.key })).json.status).toBe("completed");
    const asked = await api(`/orders/${placed.json.orderId}/refund-request`, {
      key: holder.key,
      body: { reason: "never arrived" },
    });
    expect(asked.status, asked.text).toBe(200);
    const { id: requestId } = await sqlRow(
      `SELECT r.id FROM refund_requests r JOIN orders o ON o.id = r.order_id WHERE o.public_id = $1`,
      [placed.json.orderId],
    );
    const before = await balanceCents(holder.accountId);
    const decisions = await Promise.all([
      decideRefundRequest({
        requestId,
        decision: "refund",
        refundCents: 1000,
        restock: true,
        note: "",
        actor: "admin:a",
      }),
      decideRefundRequest({
        requestId,
        decision: "refund",
        refundCents: 1000,
        restock: false,
        note: "",
        actor: "admin:b",
      }),
      decideRefundRequest({ requestId, decision: "decline", note: "no", actor: "admin:c" }),
    ]);
    expect(decisions.filter((d) => d.status === "decided")).toHaveLength(1);
    expect(decisions.filter((d) => d.status === "already_decided")).toHaveLength(2);
    const refunds = await sql(
      `SELECT l.amount_cents FROM ledger_entries l JOIN orders o ON o.id = l.order_id WHERE o.public_id = $1 AND l.kind = 'refund'`,
      [placed.json.orderId],
    );
    const after = await balanceCents(holder.accountId);
    expect(after - before).toBe(refunds.reduce((sum, r) => sum + r.amount_cents, 0));
    expect(refunds.length).toBeLessThanOrEqual(1);
    // A later decision changes nothing.
    expect(
      await decideRefundRequest({
        requestId,
        decision: "refund",
        refundCents: 1,
        restock: false,
        note: "",
        actor: "x",
      }),
    ).toMatchObject({ status: "already_decided" });
    await expectBooksBalance();
  }, 60_000);
});
