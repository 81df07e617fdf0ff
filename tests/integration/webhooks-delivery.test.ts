// Acceptance over real HTTP: orders placed through the API, fulfilled by a real worker, produce
// exactly one signed event each, delivered to a local receiver and verified with the
// standardwebhooks package, the library a receiver would use.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { startLocalWebhooksWorker } from "../helpers/local-webhooks-worker";
import { rotateWebhookSecret } from "@/lib/webhooks/rotate-webhook-secret";
import { sendTestEvent } from "@/lib/webhooks/send-test-event";
import { setLowBalanceThreshold } from "@/lib/webhooks/set-low-balance-threshold";
import { requestWalletAdjustment } from "@/lib/wallet/request-wallet-adjustment";
import { confirmWalletAdjustment } from "@/lib/wallet/confirm-wallet-adjustment";
import { api } from "../helpers/api";
import { sql, firstOf, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { WebhookReceiver, type ReceivedWebhook } from "../helpers/webhook-receiver";
import { addEndpoint, recordEvent } from "../helpers/webhooks";
import { useCleanDatabase } from "../helpers/clean-database";

let worker: RunningWorker;
let receiver: WebhookReceiver;

useCleanDatabase();
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  worker = await startLocalWebhooksWorker({
    concurrency: 4,
    webhookConcurrency: 3,
  });
});
afterAll(async () => {
  // The receiver first: it lets go of held requests, so the worker's stop need not wait them out.
  await receiver?.close();
  await worker?.stop();
});

async function waitForRequests(predicate: (r: ReceivedWebhook) => boolean, count: number) {
  await expect
    .poll(() => receiver.received.filter(predicate).length, { timeout: 20_000, interval: 50 })
    .toBeGreaterThanOrEqual(count);
  return receiver.received.filter(predicate);
}

function forUrl(url: string) {
  return (r: ReceivedWebhook) => r.path === new URL(url).pathname;
}

async function waitTerminal(key: string, orderId: string) {
  const res = await api(`/orders/${orderId}?wait=20`, { key });
  expect(res.status).toBe(200);
  return res.json;
}

describe("order events", () => {
  it("an order placed through the API produces exactly one order.completed event; its signature verifies; tampering or an old timestamp fails", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const url = `${receiver.url}/completed`;
    const endpoint = await addEndpoint(account.accountId, url);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5150001" });
    const invoice = await waitTerminal(account.key, placed.json.orderId);
    expect(invoice.status).toBe("completed");

    const delivered = firstOf(await waitForRequests(forUrl(url), 1));
    const events = await sql(
      `SELECT public_id, sequence, type FROM webhook_events WHERE account_id = $1 ORDER BY sequence`,
      [account.accountId],
    );
    expect(events.filter((e) => e.type === "order.completed")).toHaveLength(1);
    expect(delivered.headers["webhook-id"]).toBe(events.find((e) => e.type === "order.completed")!.public_id);

    const webhook = new Webhook(endpoint.secret);
    const payload = webhook.verify(delivered.body, delivered.headers) as any;
    const { success, ...apiInvoice } = invoice;
    expect(success).toBe(true);
    expect(payload).toEqual({
      type: "order.completed",
      timestamp: expect.any(String),
      livemode: true,
      data: apiInvoice,
    });

    const tampered = delivered.body.replace(`"status":"completed"`, `"status":"cancelled"`);
    expect(tampered).not.toBe(delivered.body);
    expect(() => webhook.verify(tampered, delivered.headers)).toThrow(WebhookVerificationError);
    // A capture replayed later: correctly signed, but older than the 5-minute tolerance.
    const old = new Date(Date.now() - 10 * 60_000);
    const replayedHeaders = {
      ...delivered.headers,
      "webhook-timestamp": String(Math.floor(old.getTime() / 1000)),
      "webhook-signature": webhook.sign(delivered.headers["webhook-id"]!, old, delivered.body),
    };
    expect(() => webhook.verify(delivered.body, replayedHeaders)).toThrow("Message timestamp too old");
    // Another endpoint's secret does not verify it.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 7).toString("base64")}`).verify(delivered.body, delivered.headers),
    ).toThrow(WebhookVerificationError);

    await expect
      .poll(
        async () =>
          (await sql(`SELECT status FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.endpointId])).map(
            (d) => d.status,
          ),
        { timeout: 10_000 },
      )
      .toEqual(["delivered"]);
    await expectBooksBalance();
  });

  it("a cancelled order produces order.cancelled with refunded: true, to an endpoint subscribed to it only", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const cancelledUrl = `${receiver.url}/cancelled-only`;
    const endpoint = await addEndpoint(account.accountId, cancelledUrl, ["order.cancelled"]);
    const ok = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5150002" });
    const refused = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5150404" });
    await waitTerminal(account.key, ok.json.orderId);
    const cancelled = await waitTerminal(account.key, refused.json.orderId);
    expect(cancelled).toMatchObject({ status: "cancelled", refunded: true });

    const delivered = firstOf(await waitForRequests(forUrl(cancelledUrl), 1));
    const payload = new Webhook(endpoint.secret).verify(delivered.body, delivered.headers) as any;
    expect(payload.type).toBe("order.cancelled");
    expect(payload.data).toMatchObject({
      orderId: refused.json.orderId,
      status: "cancelled",
      refunded: true,
      error: "PLAYER NOT FOUND",
    });
    // Both events exist (GET /events), but the completed one was not sent to this endpoint.
    const types = (
      await sql(`SELECT type FROM webhook_events WHERE account_id = $1 ORDER BY sequence`, [account.accountId])
    ).map((e) => e.type);
    expect(types.sort()).toEqual(["order.cancelled", "order.completed"]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter(forUrl(cancelledUrl))).toHaveLength(1);
    await expectBooksBalance();
  });

  it("game-key events carry the invoice without the codes", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const url = `${receiver.url}/keys`;
    const endpoint = await addEndpoint(account.accountId, url);
    const products =
      await sql(`SELECT p.catalog_id FROM products p JOIN game_lines l ON l.id = p.line_id JOIN inventory_codes c ON c.product_id = p.id
      WHERE l.kind = 'gamekey' AND c.status = 'available' GROUP BY p.catalog_id LIMIT 1`);
    expect(products).toHaveLength(1);
    const placed = await order(account.key, { pid: products[0]!.catalog_id, trxid: newTrxid() });
    const invoice = await waitTerminal(account.key, placed.json.orderId);
    expect(invoice.codes.length).toBe(1);
    const delivered = firstOf(await waitForRequests(forUrl(url), 1));
    const payload = new Webhook(endpoint.secret).verify(delivered.body, delivered.headers) as any;
    expect(payload.data.codes).toBeUndefined();
    expect(delivered.body).not.toContain(invoice.codes[0]);
    expect(payload.data.orderId).toBe(invoice.orderId);
  });
});

describe("wallet, balance and endpoint events", () => {
  it("an admin credit and debit produce wallet.credited and wallet.debited with the balance after", async () => {
    const account = await createAccount({ balanceCents: 1_000 });
    const url = `${receiver.url}/wallet`;
    const endpoint = await addEndpoint(account.accountId, url, ["wallet.credited", "wallet.debited"]);
    for (const [kind, cents, note] of [
      ["credit", 2_500, "top-up"],
      ["debit", 500, "correction"],
    ] as const) {
      const requested = await requestWalletAdjustment({
        kind,
        accountId: account.accountId,
        amountCents: cents,
        note,
        adminTelegramId: 1,
        adminUserId: 1,
        actor: "telegram:1",
      });
      expect(requested.status).toBe("requested");
      const confirmed = await confirmWalletAdjustment({
        token: (requested as { request: { token: string } }).request.token,
        adminTelegramId: 1,
        adminUserId: 1,
        actor: "telegram:1",
      });
      expect(confirmed.status).toBe("confirmed");
    }
    const delivered = await waitForRequests(forUrl(url), 2);
    const payloads = delivered
      .map((d) => new Webhook(endpoint.secret).verify(d.body, d.headers) as any)
      .sort((a, b) => a.type.localeCompare(b.type));
    expect(payloads.map((p) => [p.type, p.data])).toEqual([
      ["wallet.credited", { amountUsd: 25, balanceUsd: 35, currency: "USD", note: "top-up" }],
      ["wallet.debited", { amountUsd: 5, balanceUsd: 30, currency: "USD", note: "correction" }],
    ]);
    await expectBooksBalance();
  });

  it("balance.low fires once when an order takes the balance below the threshold, not again while it stays below", async () => {
    const account = await createAccount({ balanceCents: 500 });
    await setLowBalanceThreshold({ accountId: account.accountId, thresholdCents: 300, actor: "test" });
    const url = `${receiver.url}/low`;
    const endpoint = await addEndpoint(account.accountId, url, ["balance.low"]);
    const price = (await sqlRow(`SELECT price_cents FROM products WHERE catalog_id = 'SVCBR60'`)).price_cents;
    expect(price).toBeLessThan(300);
    // Debit until the balance is below the threshold, then once more.
    let balance = 500;
    let orders = 0;
    while (balance >= 300 || orders < 2) {
      const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5150003" });
      expect(placed.json.orderCreated).toBe(true);
      balance -= price;
      orders++;
    }
    const delivered = firstOf(await waitForRequests(forUrl(url), 1));
    const payload = new Webhook(endpoint.secret).verify(delivered.body, delivered.headers) as any;
    expect(payload).toMatchObject({ type: "balance.low", data: { currency: "USD", thresholdUsd: 3 } });
    expect(payload.data.balanceUsd).toBeLessThan(3);
    expect(
      await sql(`SELECT count(*)::int AS n FROM webhook_events WHERE account_id = $1 AND type = 'balance.low'`, [
        account.accountId,
      ]),
    ).toEqual([{ n: 1 }]);
  });

  it("endpoint.test goes to the one endpoint asked; after a rotation both the new and the old secret verify", async () => {
    const account = await createAccount();
    const a = await addEndpoint(account.accountId, `${receiver.url}/test-a`, ["order.completed"]);
    await addEndpoint(account.accountId, `${receiver.url}/test-b`);
    const rotated = await rotateWebhookSecret({
      accountId: account.accountId,
      endpointId: a.endpointId,
      actor: "test",
    });
    expect(rotated.status).toBe("rotated");
    const newSecret = (rotated as { secret: string }).secret;
    expect(newSecret).not.toBe(a.secret);

    const queued = await sendTestEvent({ accountId: account.accountId, endpointId: a.endpointId });
    expect(queued).toMatchObject({ status: "queued", deliveries: 1 });
    const delivered = firstOf(await waitForRequests(forUrl(`${receiver.url}/test-a`), 1));
    expect(delivered.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [newSecret, a.secret]) {
      expect(new Webhook(secret).verify(delivered.body, delivered.headers)).toMatchObject({
        type: "endpoint.test",
        data: { endpointId: a.endpointId },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter(forUrl(`${receiver.url}/test-b`))).toHaveLength(0);
  });

  it("an account without endpoints still records its events (for GET /events) and queues no delivery", async () => {
    const account = await createAccount({ balanceCents: 1_000 });
    const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5150004" });
    await waitTerminal(account.key, placed.json.orderId);
    await expect
      .poll(async () =>
        (await sql(`SELECT type FROM webhook_events WHERE account_id = $1`, [account.accountId])).map((e) => e.type),
      )
      .toEqual(["order.completed"]);
    expect(
      await sql(
        `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.account_id = $1`,
        [account.accountId],
      ),
    ).toEqual([{ n: 0 }]);
  });
});

describe("isolation", () => {
  it("a receiver holding every delivery open does not hold up orders: deliveries have slots of their own", async () => {
    const account = await createAccount({ balanceCents: 1_000 });
    const url = `${receiver.url}/slow`;
    const endpoint = await addEndpoint(account.accountId, url);
    const slow = forUrl(url);
    const before = receiver.defaultAnswer;
    receiver.defaultAnswer = "hang";
    try {
      for (let i = 0; i < 5; i++) await recordEvent(account.accountId, "endpoint.test", { i }, endpoint.endpointId);
      // All three webhook slots are taken by requests the receiver does not answer.
      await waitForRequests(slow, 3);
      const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5150005" });
      expect((await waitTerminal(account.key, placed.json.orderId)).status).toBe("completed");
      // The order finished while the deliveries were still held (the 15 s timeout had not cut them).
      expect(receiver.holding).toBe(3);
    } finally {
      receiver.defaultAnswer = before;
    }
  });
});
