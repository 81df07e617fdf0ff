// An order's metadata over real HTTP: what POST /orders takes is what the invoice, GET /orders/{id},
// GET /history, a signed webhook delivery at a local receiver and the dashboard's orders CSV export
// give back; its limits answer the catalogue's INVALID BODY naming the field, storing nothing; and it
// is part of the idempotency fingerprint, whatever its key order.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { projectRoot } from "@/lib/config/env";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { readCsv } from "@/lib/csv/read-csv";
import type { RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { startLocalWebhooksWorker } from "../helpers/local-webhooks-worker";
import { creditTestWallet } from "@/lib/wallet/test-wallet";
import { suiteBaseUrl } from "../helpers/suite";
import { api } from "../helpers/api";
import { mintSessionCookie } from "../helpers/admin-session";
import { enableTwoFactor } from "../helpers/two-factor";
import { sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { addEndpoint } from "../helpers/webhooks";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase();

const built = fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"));
if (!built) console.log("[order metadata] the CSV export skipped: no Next build (.next); run without SKIP_BUILD");

let worker: RunningWorker;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  worker = await startLocalWebhooksWorker({
    concurrency: 2,
    webhookConcurrency: 2,
  });
});
afterAll(async () => {
  await receiver?.close();
  await worker?.stop();
});

const METADATA = {
  customerId: "cus_8812",
  cartId: "cart-2026-0042",
  note: 'Ünïcode ✓, "quotes", commas',
  empty: "",
  "=formula": "=HYPERLINK(1)",
};

const BR60 = { pid: "SVCBR60", userId: "5123456" };

async function waitCompleted(key: string, orderId: string) {
  const res = await api(`/orders/${orderId}?wait=20`, { key });
  expect(res.status).toBe(200);
  expect(res.json.status).toBe("completed");
  return res.json;
}

describe("metadata round-trips", () => {
  it("through the invoice, GET /orders/{id}, /history and a signed order.completed delivery", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const url = `${receiver.url}/metadata-${account.accountId}`;
    const endpoint = await addEndpoint(account.accountId, url, ["order.completed"]);

    const placed = await order(account.key, { ...BR60, trxid: newTrxid("md"), metadata: METADATA });
    expect(placed.status).toBe(200);
    expect(placed.json.metadata).toEqual(METADATA);
    const plain = await order(account.key, { ...BR60, trxid: newTrxid("none") });
    expect(plain.status).toBe(200);
    // Like the other optional fields: an order without metadata has no field at all.
    expect("metadata" in plain.json).toBe(false);

    const read = await waitCompleted(account.key, placed.json.orderId);
    expect(read.metadata).toEqual(METADATA);
    expect("metadata" in (await waitCompleted(account.key, plain.json.orderId))).toBe(false);

    const history = await api("/history", { key: account.key });
    expect(history.status).toBe(200);
    const listed = history.json.orders.find((o: { orderId: string }) => o.orderId === placed.json.orderId);
    expect(listed.metadata).toEqual(METADATA);
    const paged = await api("/history?page=1&pageSize=5", { key: account.key });
    expect(paged.json.orders.find((o: { orderId: string }) => o.orderId === placed.json.orderId).metadata).toEqual(
      METADATA,
    );

    await expect
      .poll(() => receiver.received.filter((r) => r.path === new URL(url).pathname).length, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(2);
    const payloads = receiver.received
      .filter((r) => r.path === new URL(url).pathname)
      .map((r) => new Webhook(endpoint.secret).verify(r.body, r.headers) as any);
    const withMetadata = payloads.find((p) => p.data.orderId === placed.json.orderId);
    expect(withMetadata).toMatchObject({ type: "order.completed", data: { metadata: METADATA } });
    const { success: _success, ...invoice } = read;
    expect(withMetadata.data).toEqual(invoice);
    expect("metadata" in payloads.find((p) => p.data.orderId === plain.json.orderId).data).toBe(false);
    await expectBooksBalance();
  });

  it("in test mode the same way", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const testKey = await issueApiKey(account.accountId, "test", { livemode: false });
    if (testKey.status !== "created") throw new Error(`no test key: ${testKey.status}`);
    await creditTestWallet(account.accountId, 1000, "test");
    const placed = await order(testKey.key, { ...BR60, trxid: newTrxid("tm"), metadata: { cartId: "test-cart" } });
    expect(placed.status).toBe(200);
    expect(placed.json).toMatchObject({ livemode: false, metadata: { cartId: "test-cart" } });
    const read = await waitCompleted(testKey.key, placed.json.orderId);
    expect(read.metadata).toEqual({ cartId: "test-cart" });
  });

  it("null and {} mean none", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    for (const metadata of [null, {}]) {
      const placed = await order(account.key, { ...BR60, trxid: newTrxid("nil"), metadata });
      expect(placed.status).toBe(200);
      expect("metadata" in placed.json).toBe(false);
    }
    expect(await sql(`SELECT metadata FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([
      { metadata: null },
      { metadata: null },
    ]);
  });

  it.skipIf(!built)("into the dashboard's orders CSV export, as JSON text", async () => {
    const email = `metadata-viewer-${Date.now()}@example.com`;
    expect(
      (await createAdminUser({ email, password: "a long enough password", role: "viewer", actor: "test" })).status,
    ).toBe("created");
    await enableTwoFactor(email);
    const cookie = await mintSessionCookie({ email });
    const account = await createAccount({ balanceCents: 1000 });
    const withMetadata = await order(account.key, { ...BR60, trxid: newTrxid("csv"), metadata: METADATA });
    const without = await order(account.key, { ...BR60, trxid: newTrxid("csv") });

    const res = await fetch(`${suiteBaseUrl()}/admin/orders/export.csv?account=${account.accountId}`, {
      headers: { cookie },
    });
    expect(res.status).toBe(200);
    const parsed = readCsv(await res.text(), 1_000_000);
    if (!("records" in parsed)) throw new Error(parsed.error);
    const [header, ...rows] = parsed.records.map((r) => r.record);
    const column = header!.indexOf("metadata");
    expect(column).toBe(header!.length - 1);
    const cell = (orderId: string) => rows.find((row) => row[0] === orderId)![column];
    // The shared writer neutralises formulas inside cells; the JSON text starts with "{", so it stays whole.
    expect(JSON.parse(cell(withMetadata.json.orderId)!)).toEqual(METADATA);
    expect(cell(without.json.orderId)).toBe("");
  });
});

describe("metadata's limits", () => {
  const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${i}`, `v${i}`]));

  it("answer 400 INVALID BODY naming the field, and store nothing", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const longKey = "k".repeat(41);
    const refused: [string, unknown, string][] = [
      ["21 keys", keys(21), "metadata"],
      ["a key over 40 characters", { [longKey]: "v" }, `metadata.${longKey}`],
      ["an empty key", { "": "v" }, "metadata."],
      ["a value over 500 characters", { cartId: "v".repeat(501) }, "metadata.cartId"],
      ["a number as a value", { cartId: 42 }, "metadata.cartId"],
      ["an object as a value", { cart: { id: "1" } }, "metadata.cart"],
      ["a control character in a value", { cartId: "a\u0000b" }, "metadata.cartId"],
      ["an array", ["cartId"], "metadata"],
      ["a string", "cart-1", "metadata"],
    ];
    const trxid = newTrxid("lim");
    for (const [what, metadata, field] of refused) {
      const res = await order(account.key, { ...BR60, trxid, metadata });
      expect(res.status, what).toBe(400);
      expect(res.json, what).toMatchObject({ success: false, error: "INVALID BODY", code: "INVALID_BODY" });
      expect(res.json.details, what).toEqual([{ field, message: expect.any(String) }]);
    }
    expect(await sql(`SELECT id FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([]);

    // At the limits exactly: placed, and the trxid the refusals left free is a new order.
    const atLimits = { ...keys(19), ["k".repeat(40)]: "v".repeat(500) };
    const placed = await order(account.key, { ...BR60, trxid, metadata: atLimits });
    expect(placed.status).toBe(200);
    expect(placed.headers.get("idempotent-replayed")).toBeNull();
    expect(placed.json.metadata).toEqual(atLimits);
    await expectBooksBalance();
  });
});

describe("metadata in the idempotency fingerprint", () => {
  it("the same metadata in another key order is a replay; other metadata, or none, is a mismatch", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const trxid = newTrxid("fp");
    const first = await order(account.key, { ...BR60, trxid, metadata: { a: "1", b: "2", c: "3" } });
    expect(first.status).toBe(200);

    const replay = await order(account.key, { ...BR60, trxid, metadata: { c: "3", a: "1", b: "2" } });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    // The same invoice, but for what the file's worker may have done to the order in between.
    const { status: replayStatus, durationSec: _duration, ...replayed } = replay.json;
    const { status: _firstStatus, ...original } = first.json;
    expect(replayed).toEqual(original);
    expect(["processing", "completed"]).toContain(replayStatus);

    for (const metadata of [
      { a: "1", b: "2" },
      { a: "1", b: "2", c: "4" },
      { a: "1", b: "2", d: "3" },
      undefined,
      {},
    ]) {
      const res = await order(account.key, { ...BR60, trxid, metadata });
      expect(res.status, JSON.stringify(metadata)).toBe(409);
      expect(res.json).toEqual({
        success: false,
        error: "TRXID REUSED WITH DIFFERENT REQUEST",
        code: "IDEMPOTENCY_MISMATCH",
      });
    }

    // An order placed without metadata replays without it (and with null or {}), never with some.
    const bare = newTrxid("fp");
    expect((await order(account.key, { ...BR60, trxid: bare })).status).toBe(200);
    for (const metadata of [undefined, null, {}]) {
      const res = await order(account.key, { ...BR60, trxid: bare, metadata });
      expect(res.headers.get("idempotent-replayed"), JSON.stringify(metadata)).toBe("true");
    }
    expect((await order(account.key, { ...BR60, trxid: bare, metadata: { a: "1" } })).status).toBe(409);
    expect(await sql(`SELECT count(*)::int AS n FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([
      { n: 2 },
    ]);
    await expectBooksBalance();
  });
});
