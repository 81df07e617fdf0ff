// The OpenAPI document describes the service to the letter: a table of real requests over HTTP,
// covering every operation with successes and failures, each request and each answer checked against
// the /openapi.json the server serves (tests/helpers/openapi-validator.ts). An answer whose status,
// headers or body the document does not describe fails; so does a request the service accepts and the
// document refuses (a validating gateway would refuse it), and a malformed request the document
// would let through. Two servers of its own give the 429 and 503 of the rate limiter.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCatalogue, type ErrorKey } from "@/lib/http/errors";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { setKeySpendingLimit } from "@/lib/accounts/set-key-spending-limit";
import { fulfilOrder } from "@/lib/fulfilment/sql/fulfil-order";
import { setLineRefundWindow } from "@/lib/catalog/set-line-refund-window";
import { sendCatalogChanges } from "@/lib/catalog/sql/send-catalog-changes";
import { api, apiRequest } from "../helpers/api";
import { sql } from "../helpers/db";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { newTrxid } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { setServerSwitch } from "../helpers/switches";
import { addEndpoint, recordEvent } from "../helpers/webhooks";
import { findClosedPort } from "../helpers/tcp-proxy";
import {
  loadOpenApiValidator,
  type OpenApiValidator,
  type ReceivedResponse,
  type SentRequest,
} from "../helpers/openapi-validator";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { suiteBaseUrl, suiteDatabaseUrl } from "../helpers/suite";

useCleanDatabase();

interface Call {
  method?: string;
  path: string;
  key?: string;
  /** Sent as JSON with Content-Type: application/json, unless rawBody is given. */
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  base?: string;
}

interface Exchange {
  request: SentRequest;
  response: ReceivedResponse;
  json: any;
}

async function send(call: Call): Promise<Exchange> {
  const { method, headers, body } = apiRequest(call);
  const { status, headers: received, text, json } = await api(call.path, call, call.base ?? suiteBaseUrl());
  return { request: { method, url: call.path, headers, body }, response: { status, headers: received, text }, json };
}

let validator: OpenApiValidator;
/** operationId -> statuses seen, to show every operation was exercised. */
const seen = new Map<string, Set<number>>();
function record(operationId: string, status: number) {
  seen.set(operationId, (seen.get(operationId) ?? new Set()).add(status));
}

/**
 * Sends the call and checks both sides against the document. `accepted` says whether the document
 * should accept the request: false for the malformed requests the service refuses for their shape.
 */
async function exchange(call: Call, expected: { status: number; code?: ErrorKey; accepted?: boolean }) {
  const result = await send(call);
  const what = `${result.request.method} ${call.path} -> ${result.response.status} ${result.response.text.slice(0, 300)}`;
  expect(result.response.status, what).toBe(expected.status);
  if (expected.code) {
    expect(result.json?.code, what).toBe(expected.code);
    expect(errorCatalogue[expected.code].status).toBe(expected.status);
  }
  const requestProblems = validator.checkRequest(result.request);
  if (expected.accepted === false) expect(requestProblems, `the document should refuse ${what}`).not.toEqual([]);
  else expect(requestProblems, `the document refuses ${what}`).toEqual([]);
  expect(validator.checkResponse(result.request, result.response), `undocumented in ${what}`).toEqual([]);
  record(validator.operationFor(result.request)!.operationId, result.response.status);
  return result;
}

let funded: Awaited<ReturnType<typeof createAccount>>;
let secondKey: string;
let poor: Awaited<ReturnType<typeof createAccount>>;
let unfunded: Awaited<ReturnType<typeof createAccount>>;
let banned: Awaited<ReturnType<typeof createAccount>>;
let restricted: Awaited<ReturnType<typeof createAccount>>;
let endpointId: number;
const placed = { trxid: newTrxid("conf"), orderId: "", withMetadata: "" };

beforeAll(async () => {
  const served = await fetch(`${suiteBaseUrl()}/openapi.json`);
  validator = await loadOpenApiValidator(await served.json());
  funded = await createAccount({ balanceCents: 100_000 });
  secondKey = (await issueTestKey(funded.accountId)).key;
  poor = await createAccount({ balanceCents: 10 });
  unfunded = await createAccount();
  banned = await createAccount({ balanceCents: 1000 });
  await sql(`UPDATE accounts SET banned_at = now() WHERE id = $1`, [banned.accountId]);
  restricted = await createAccount({ balanceCents: 1000 });
  await sql(`UPDATE accounts SET restricted_until = now() + interval '1 day' WHERE id = $1`, [restricted.accountId]);
  endpointId = (await addEndpoint(funded.accountId, "http://127.0.0.1:9/hook")).endpointId;
  await recordEvent(funded.accountId, "endpoint.test", { endpointId, url: "http://127.0.0.1:9/hook", message: "hi" });
});

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe("every operation, successes and failures, as the document describes them", () => {
  it("listServices, listProducts, getProduct, getCatalog, getMyIp, getBalance, fundBalance", async () => {
    await exchange({ path: "/services", key: funded.key }, { status: 200 });
    await exchange({ path: "/services", headers: { authorization: `Bearer ${funded.key}` } }, { status: 200 });
    await exchange({ path: "/services" }, { status: 401, code: "MISSING_API_KEY", accepted: false });
    await exchange({ path: "/services", key: "svc_short" }, { status: 401, code: "INVALID_API_KEY_FORMAT" });
    await exchange({ path: "/products", key: funded.key }, { status: 200 });
    await exchange({ path: "/products", key: `svc_${"A".repeat(40)}` }, { status: 401, code: "INVALID_API_KEY" });
    await exchange({ path: "/catalog", key: funded.key }, { status: 200 });
    const since = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
    await exchange({ path: `/products?updatedSince=${since}`, key: funded.key }, { status: 200 });
    await exchange({ path: "/products?updatedSince=2026-01-15", key: funded.key }, { status: 200 });
    await exchange(
      { path: "/products?updatedSince=yesterday", key: funded.key },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );
    await exchange({ path: "/products/SVCBR60", key: funded.key }, { status: 200 });
    await exchange({ path: "/products/SVCGKINDIE", key: funded.key }, { status: 200 });
    await sql(`UPDATE products SET active = false WHERE catalog_id = 'SVCBR325'`);
    try {
      const off = await exchange({ path: "/products/SVCBR325", key: funded.key }, { status: 200 });
      expect(off.json).toMatchObject({ orderable: false, unorderableReason: "PRODUCT_DISABLED" });
      await exchange({ path: `/products?updatedSince=${since}`, key: funded.key }, { status: 200 });
    } finally {
      await sql(`UPDATE products SET active = true WHERE catalog_id = 'SVCBR325'`);
    }
    await exchange({ path: "/products/SVCBRNOSUCH", key: funded.key }, { status: 404, code: "PRODUCT_NOT_FOUND" });
    await exchange({ path: "/catalog", key: banned.key }, { status: 403, code: "ACCOUNT_BANNED" });
    await exchange({ path: "/my-ip", key: funded.key }, { status: 200 });
    await exchange({ path: "/my-ip", key: restricted.key }, { status: 403, code: "ACCOUNT_RESTRICTED" });
    await exchange({ path: "/balance", key: funded.key }, { status: 200 });
    await exchange({ path: "/balance", key: restricted.key }, { status: 403, code: "ACCOUNT_RESTRICTED" });
    await exchange({ method: "POST", path: "/balance", key: funded.key }, { status: 501, code: "NOT_IMPLEMENTED" });
    // Test mode's answers are described too (livemode false).
    const testKey = await issueApiKey(funded.accountId, "test", { livemode: false });
    if (testKey.status !== "created") throw new Error(`no test key: ${testKey.status}`);
    await exchange({ path: "/balance", key: testKey.key }, { status: 200 });
    await exchange({ path: "/products/SVCBR60", key: testKey.key }, { status: 200 });
  });

  it("placeOrder, with every alias, its replays and its refusals", async () => {
    const first = await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCBR60", trxid: placed.trxid, userId: "5123456789" } },
      { status: 200 },
    );
    placed.orderId = first.json.orderId;
    const replay = await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCBR60", trxid: placed.trxid, userId: "5123456789" } },
      { status: 200 },
    );
    expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
    // The aliases the contract lists, for every aliased field.
    await exchange(
      {
        path: "/orders",
        key: funded.key,
        body: { PID: "SVCBR60", trxId: newTrxid("a"), userID: "5123450001", idempotency: newTrxid("i") },
      },
      { status: 200 },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCBR60", idtrx: newTrxid("a"), userId: "5123450002" } },
      { status: 200 },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCBR60", idTrx: newTrxid("a"), userId: 5123450003 } },
      { status: 200 },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCGKINDIE", trxid: newTrxid("k"), quantity: 2 } },
      { status: 200 },
    );
    // A wallet short of the price: a cancelled invoice, still a 200.
    const short = await exchange(
      { path: "/orders", key: poor.key, body: { pid: "SVCBR60", trxid: newTrxid("p"), userId: "5123450004" } },
      { status: 200 },
    );
    expect(short.json).toMatchObject({ orderCreated: false, status: "cancelled" });

    await exchange(
      { path: "/orders", key: funded.key, body: { trxid: newTrxid("m"), userId: "1" } },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCBR60", userId: "1" } },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCGKAAA", trxid: newTrxid("q"), quantity: 11 } },
      { status: 400, code: "INVALID_BODY", accepted: false },
    );
    // Any quantity on a top-up line, even one the document's bounds refuse, is QUANTITY ONLY.
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCBR60", trxid: newTrxid("q"), userId: "1", quantity: 11 } },
      { status: 400, code: "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD", accepted: false },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCNOPE", trxid: newTrxid("u"), userId: "1" } },
      { status: 400, code: "UNKNOWN_PID" },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCBR60", trxid: newTrxid("g"), userId: "1", quantity: 2 } },
      { status: 400, code: "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD" },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCGKAAA", trxid: newTrxid("s"), quantity: 4 } },
      { status: 400, code: "INSUFFICIENT_STOCK" },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCBR60", trxid: newTrxid("m"), userId: "1", maxPrice: 0.5 } },
      { status: 409, code: "PRICE_ABOVE_MAX" },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCBR60", trxid: newTrxid("m"), userId: "1", maxPrice: 100 } },
      { status: 200 },
    );
    const limited = await createAccount({ balanceCents: 1000 });
    await setKeySpendingLimit(limited.accountId, limited.keyPrefix, 50, "test");
    await exchange(
      { path: "/orders", key: limited.key, body: { pid: "SVCBR60", trxid: newTrxid("l"), userId: "1" } },
      { status: 403, code: "KEY_SPENDING_LIMIT" },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { pid: "SVCGA60", trxid: placed.trxid, userId: "5123456789" } },
      { status: 409, code: "IDEMPOTENCY_MISMATCH" },
    );
    // Metadata: the invoice that carries it, a replay in another key order, other metadata, and each limit.
    const tagged = { pid: "SVCBR60", trxid: newTrxid("md"), userId: "1", metadata: { cartId: "c-1", customer: "42" } };
    const withMetadata = await exchange({ path: "/orders", key: funded.key, body: tagged }, { status: 200 });
    expect(withMetadata.json.metadata).toEqual(tagged.metadata);
    placed.withMetadata = withMetadata.json.orderId;
    await exchange(
      { path: "/orders", key: funded.key, body: { ...tagged, metadata: { customer: "42", cartId: "c-1" } } },
      { status: 200 },
    );
    await exchange(
      { path: "/orders", key: funded.key, body: { ...tagged, metadata: { cartId: "c-2" } } },
      { status: 409, code: "IDEMPOTENCY_MISMATCH" },
    );
    for (const metadata of [
      Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])),
      { ["k".repeat(41)]: "v" },
      { cartId: "v".repeat(501) },
      { cartId: 42 },
      "cart",
    ]) {
      await exchange(
        { path: "/orders", key: funded.key, body: { ...tagged, trxid: newTrxid("md"), metadata } },
        { status: 400, code: "INVALID_BODY", accepted: false },
      );
    }
    await exchange(
      { path: "/orders", key: secondKey, body: { pid: "SVCBR60", trxid: placed.trxid, userId: "5123456789" } },
      { status: 403, code: "FORBIDDEN" },
    );
    await exchange(
      {
        path: "/orders",
        key: funded.key,
        rawBody: '{"pid": "SVCBR60",',
        headers: { "content-type": "application/json" },
      },
      { status: 401, code: "INVALID_JSON", accepted: false },
    );
    await exchange(
      { path: "/orders", key: funded.key, rawBody: "pid=SVCBR60", headers: { "content-type": "text/plain" } },
      { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", accepted: false },
    );
    // Unknown fields are ignored, so only the size is wrong with this body.
    const large = await exchange(
      {
        path: "/orders",
        key: funded.key,
        body: { pid: "SVCBR60", trxid: newTrxid("l"), userId: "1", note: "x".repeat(20_000) },
      },
      { status: 413, code: "PAYLOAD_TOO_LARGE" },
    );
    expect(large.json).toEqual({
      success: false,
      error: errorCatalogue.PAYLOAD_TOO_LARGE.error,
      code: "PAYLOAD_TOO_LARGE",
      maxBytes: 16_384,
    });
    await exchange(
      { path: "/orders", key: unfunded.key, body: { pid: "SVCBR60", trxid: newTrxid("n"), userId: "1" } },
      { status: 200 },
    );
  });

  it("getOrder, getHistory, getLedger", async () => {
    const read = await exchange({ path: `/orders/${placed.orderId}`, key: funded.key }, { status: 200 });
    const tagged = await exchange({ path: `/orders/${placed.withMetadata}`, key: funded.key }, { status: 200 });
    expect(tagged.json.metadata).toEqual({ cartId: "c-1", customer: "42" });
    expect(read.response.headers.get("order-matched-by")).toBe("publicId");
    await exchange({ path: `/orders/${placed.trxid}?by=trxid&wait=0`, key: secondKey }, { status: 200 });
    await exchange({ path: `/orders/${placed.orderId}?wait=1`, key: funded.key }, { status: 200 });
    await exchange({ path: "/orders/SVCAPI-BR-0-NOPE", key: funded.key }, { status: 404, code: "ORDER_NOT_FOUND" });
    await exchange({ path: `/orders/${placed.orderId}`, key: poor.key }, { status: 404, code: "ORDER_NOT_FOUND" });
    await exchange(
      { path: `/orders/${placed.orderId}?wait=31`, key: funded.key },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );
    await exchange(
      { path: `/orders/${placed.orderId}?by=name`, key: funded.key },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );

    const history = await exchange({ path: "/history", key: funded.key }, { status: 200 });
    expect(history.json.orders.find((o: { orderId: string }) => o.orderId === placed.withMetadata)).toMatchObject({
      metadata: { cartId: "c-1", customer: "42" },
    });
    await exchange({ path: "/history?limit=2", key: funded.key }, { status: 200 });
    await exchange({ path: "/history?page=1&pageSize=2", key: funded.key }, { status: 200 });
    await exchange(
      { path: "/history?limit=0", key: funded.key },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );
    await exchange(
      { path: "/history?limit=201", key: funded.key },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );
    await exchange(
      { path: "/history?pageSize=1.5&page=1", key: funded.key },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );

    await exchange({ path: "/ledger", key: funded.key }, { status: 200 });
    await exchange({ path: "/ledger?page=1&pageSize=2&format=json", key: funded.key }, { status: 200 });
    const csv = await exchange({ path: "/ledger?format=csv", key: funded.key }, { status: 200 });
    expect(csv.response.headers.get("content-disposition")).toContain("attachment");
    await exchange({ path: `/ledger?format=csv&from=${day(-1)}&to=${day(1)}`, key: funded.key }, { status: 200 });
    await exchange(
      { path: "/ledger?pageSize=501", key: funded.key },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );
    // A rule across parameters, in the operation's description: the document accepts each alone.
    await exchange(
      { path: `/ledger?format=csv&from=${day(-1)}`, key: funded.key },
      { status: 400, code: "INVALID_REQUEST" },
    );
  });

  it("cancelOrder, requestRefund", async () => {
    const holder = await createAccount({ balanceCents: 20_000 });
    const place = async (body: Record<string, unknown>) => {
      const placedOrder = await api("/orders", { key: holder.key, body });
      const { id } = (await sql(`SELECT id FROM orders WHERE public_id = $1`, [placedOrder.json.orderId]))[0]!;
      return { ...placedOrder.json, id } as { orderId: string; trxid: string; id: number };
    };
    const post = (path: string, body?: unknown) => ({ method: "POST", path, key: holder.key, body });

    const keyOrder = await place({ pid: "SVCGKAAA", trxid: newTrxid("cx"), quantity: 1 });
    const cancelled = await exchange(post(`/orders/${keyOrder.orderId}/cancel`), { status: 200 });
    expect(cancelled.json).toMatchObject({ status: "cancelled", error: "CANCELLED BY RESELLER", refunded: true });
    await exchange(post(`/orders/${keyOrder.trxid}/cancel?by=trxid`), { status: 409, code: "ORDER_FINISHED" });
    const topup = await place({ pid: "SVCBR60", trxid: newTrxid("cx"), userId: "5123" });
    // As the worker's claim leaves it: an attempt counted, the supplier being asked.
    await sql(`UPDATE orders SET attempts = 1 WHERE id = $1`, [topup.id]);
    await exchange(post(`/orders/${topup.orderId}/cancel`), { status: 409, code: "ORDER_WITH_SUPPLIER" });
    await exchange(post("/orders/SVCAPI-BR-0-NOPE/cancel"), { status: 404, code: "ORDER_NOT_FOUND" });
    await exchange(post(`/orders/${topup.orderId}/cancel?by=name`), {
      status: 400,
      code: "INVALID_REQUEST",
      accepted: false,
    });

    const { id: lineId } = (await sql(`SELECT id FROM game_lines WHERE slug = 'giftcards'`))[0]!;
    await setLineRefundWindow({ lineId, hours: 24, actor: "test" });
    const gift = await place({ pid: "SVCGC25", trxid: newTrxid("rf"), quantity: 1 });
    const reason = { reason: "The card was already redeemed when it arrived" };
    await exchange(post(`/orders/${gift.orderId}/refund-request`, reason), {
      status: 409,
      code: "REFUND_NOT_AVAILABLE",
    });
    await fulfilOrder(gift.id);
    const requested = await exchange(post(`/orders/${gift.orderId}/refund-request`, reason), { status: 200 });
    expect(requested.json.refundRequest).toMatchObject({ status: "requested", reason: reason.reason });
    await exchange(post(`/orders/${gift.trxid}/refund-request?by=trxid`, reason), {
      status: 409,
      code: "REFUND_ALREADY_REQUESTED",
    });
    const read = await exchange({ path: `/orders/${gift.orderId}`, key: holder.key }, { status: 200 });
    expect(read.json.refundRequest).toMatchObject({ status: "requested" });
    const late = await place({ pid: "SVCGC25", trxid: newTrxid("rf"), quantity: 1 });
    await fulfilOrder(late.id);
    await sql(`UPDATE orders SET finished_at = now() - interval '25 hours' WHERE id = $1`, [late.id]);
    const closed = await exchange(post(`/orders/${late.orderId}/refund-request`, reason), {
      status: 409,
      code: "REFUND_WINDOW_CLOSED",
    });
    expect(closed.json.closedAt).toEqual(expect.any(String));
    await exchange(post(`/orders/${late.orderId}/refund-request`, {}), {
      status: 400,
      code: "INVALID_BODY",
      accepted: false,
    });
  });

  it("verifyBrPlayer, verifyMobaPlayer, redeemCode, with every alias", async () => {
    for (const name of ["playerId", "playerID", "userId", "userID"]) {
      await exchange({ path: "/brvvfy", key: funded.key, body: { [name]: "5123456789" } }, { status: 200 });
    }
    await exchange({ path: "/brvvfy", key: funded.key, body: { playerId: 5123456789, trxid: "v1" } }, { status: 200 });
    await exchange(
      { path: "/brvvfy", key: funded.key, body: { playerId: "5123456404" } },
      { status: 404, code: "PLAYER_NOT_FOUND" },
    );
    const unavailable = await exchange(
      { path: "/brvvfy", key: funded.key, body: { playerId: "5123456500" } },
      { status: 503, code: "SUPPLIER_UNAVAILABLE" },
    );
    expect(unavailable.response.headers.get("retry-after")).toBe("5");
    await exchange(
      { path: "/brvvfy", key: funded.key, body: { trxid: "v2" } },
      { status: 400, code: "INVALID_BODY", accepted: false },
    );
    await exchange(
      { path: "/brvvfy", key: funded.key, body: { playerId: ["1"] } },
      { status: 400, code: "INVALID_BODY", accepted: false },
    );
    await exchange(
      { path: "/brvvfy", key: unfunded.key, body: { playerId: "5123456789" } },
      { status: 403, code: "API_NOT_ELIGIBLE" },
    );

    await exchange({ path: "/mobavfy", key: funded.key, body: { userId: "777001", zoneId: "2001" } }, { status: 200 });
    await exchange({ path: "/mobavfy", key: funded.key, body: { userID: "777001", zoneId: 2001 } }, { status: 200 });
    await exchange(
      { path: "/mobavfy", key: funded.key, body: { userId: "777404", zoneId: "2001" } },
      { status: 404, code: "PLAYER_NOT_FOUND" },
    );
    await exchange(
      { path: "/mobavfy", key: funded.key, body: { userId: "777001", zoneId: "Asia" } },
      { status: 400, code: "INVALID_BODY", accepted: false },
    );
    await exchange(
      { path: "/mobavfy", key: funded.key, body: { userId: "777001" } },
      { status: 400, code: "INVALID_BODY", accepted: false },
    );

    await exchange(
      { path: "/rdmbr", key: funded.key, body: { playerId: "5123456789", code: "ABCD-EFGH-0001" } },
      { status: 200 },
    );
    const trxid = newTrxid("r");
    for (const name of ["playerID", "userId", "userID"]) {
      await exchange(
        { path: "/rdmbr", key: funded.key, body: { [name]: "5123456789", code: "ABCD-EFGH-0002", trxid } },
        { status: 200 },
      );
    }
    await exchange(
      { path: "/rdmbr", key: funded.key, body: { playerId: "5123456789", code: "ABCD-EFGH-0003", trxid } },
      { status: 409, code: "IDEMPOTENCY_MISMATCH" },
    );
    await exchange(
      { path: "/rdmbr", key: secondKey, body: { playerId: "5123456789", code: "ABCD-EFGH-0002", trxid } },
      { status: 403, code: "FORBIDDEN" },
    );
    await exchange(
      { path: "/rdmbr", key: funded.key, body: { playerId: "5123456789", code: "USED-CODE-0001" } },
      { status: 409, code: "CODE_USED" },
    );
    await exchange(
      { path: "/rdmbr", key: funded.key, body: { playerId: "5123456789", code: "BADC-CODE-0001" } },
      { status: 400, code: "INVALID_CODE" },
    );
    await exchange(
      { path: "/rdmbr", key: funded.key, body: { playerId: "5123456789", code: "not a code" } },
      { status: 400, code: "INVALID_CODE", accepted: false },
    );
    await exchange(
      { path: "/rdmbr", key: funded.key, body: { playerId: "5123456404", code: "ABCD-EFGH-0004" } },
      { status: 404, code: "PLAYER_NOT_FOUND" },
    );
    await exchange(
      { path: "/rdmbr", key: funded.key, body: { playerId: "5123456500", code: "ABCD-EFGH-0005" } },
      { status: 503, code: "SUPPLIER_UNAVAILABLE" },
    );
    await exchange(
      { path: "/rdmbr", key: funded.key, body: { code: "ABCD-EFGH-0006" } },
      { status: 400, code: "INVALID_BODY", accepted: false },
    );
  });

  it("listEvents, replayWebhooks", async () => {
    // A product.updated event among them: the account watches from the first look, then a price moves.
    await sendCatalogChanges({ wait: true });
    await sql(`UPDATE products SET price_cents = price_cents + 1 WHERE catalog_id = 'SVCGC10'`);
    await sendCatalogChanges({ wait: true });
    const events = await exchange({ path: "/events", key: funded.key }, { status: 200 });
    expect(events.json.events.length).toBeGreaterThan(0);
    expect(events.json.events.map((event: { type: string }) => event.type)).toContain("product.updated");
    await exchange({ path: "/events?after=0&limit=1", key: funded.key }, { status: 200 });
    await exchange(
      { path: "/events?limit=0", key: funded.key },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );
    await exchange(
      { path: "/events?after=-1", key: funded.key },
      { status: 400, code: "INVALID_REQUEST", accepted: false },
    );

    await exchange({ path: "/webhooks/replay", key: funded.key, body: { after: 0 } }, { status: 200 });
    await exchange(
      { path: "/webhooks/replay", key: funded.key, body: { eventIds: [events.json.events[0].id], endpointId } },
      { status: 200 },
    );
    const unknown = await exchange(
      { path: "/webhooks/replay", key: funded.key, body: { after: 0, endpointId: 999_999 } },
      { status: 404, code: "ENDPOINT_NOT_FOUND" },
    );
    expect(unknown.json.error).toBe("ENDPOINT NOT FOUND");
    await exchange(
      { path: "/webhooks/replay", key: funded.key, body: {} },
      { status: 400, code: "INVALID_BODY", accepted: false },
    );
    await exchange(
      { path: "/webhooks/replay", key: funded.key, body: { after: 0, endpointId: 0 } },
      { status: 400, code: "INVALID_BODY", accepted: false },
    );
  });

  it("the switches: 503 MAINTENANCE and API_ORDER_DISABLED, while a replay still answers", async () => {
    const probe = funded.key;
    try {
      await setServerSwitch("API_ORDER_DISABLED", probe);
      await exchange(
        { path: "/orders", key: funded.key, body: { pid: "SVCBR60", trxid: newTrxid("d"), userId: "1" } },
        { status: 503, code: "API_ORDER_DISABLED" },
      );
      await setServerSwitch("MAINTENANCE", probe);
      await exchange(
        { path: "/orders", key: funded.key, body: { pid: "SVCBR60", trxid: newTrxid("d"), userId: "1" } },
        { status: 503, code: "MAINTENANCE" },
      );
      const replay = await exchange(
        { path: "/orders", key: funded.key, body: { pid: "SVCBR60", trxid: placed.trxid, userId: "5123456789" } },
        { status: 200 },
      );
      expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
      await exchange(
        { path: "/rdmbr", key: funded.key, body: { playerId: "5123456789", code: "ABCD-EFGH-0007" } },
        { status: 503, code: "MAINTENANCE" },
      );
    } finally {
      await setServerSwitch("none", probe);
    }
  });
});

describe("the rate limiter's answers, on servers of their own", () => {
  const children: ChildProcess[] = [];
  let limitedUrl: string;
  let storeDownUrl: string;

  beforeAll(async () => {
    const common = { ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl(), SERVE_DASHBOARD: "0" };
    const closedPort = await findClosedPort();
    const [limited, storeDown] = await Promise.all([
      startServer({ ...common, RATE_LIMIT_KEY_BURST: "2", RATE_LIMIT_KEY_PER_MINUTE: "1000000" }),
      startServer({ ...common, REDIS_URL: `redis://127.0.0.1:${closedPort}`, RATE_LIMIT_TIMEOUT_MS: "300" }),
    ]);
    children.push(limited.child, storeDown.child);
    limitedUrl = limited.baseUrl;
    storeDownUrl = storeDown.baseUrl;
  });

  afterAll(async () => {
    for (const child of children) {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    }
  });

  it("429 RATE_LIMIT with Retry-After and the RateLimit headers; every 200 before it with the RateLimit headers", async () => {
    let refused: Exchange | undefined;
    for (let attempt = 0; attempt < 50 && !refused; attempt++) {
      const burst = await Promise.all(
        [0, 1, 2, 3].map(() => send({ path: "/balance", key: funded.key, base: limitedUrl })),
      );
      for (const result of burst) {
        expect([200, 429]).toContain(result.response.status);
        expect(validator.checkResponse(result.request, result.response), result.response.text).toEqual([]);
        if (result.response.status === 429) refused = result;
      }
    }
    expect(refused?.json.code).toBe("RATE_LIMIT");
    expect(Number(refused!.response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused!.response.headers.get("ratelimit-policy")).toContain("q=2");
    record("getBalance", 429);
  });

  it("503 RATE_LIMIT_UNAVAILABLE with Retry-After when the store does not answer", async () => {
    const result = await exchange(
      { path: "/services", key: funded.key, base: storeDownUrl },
      { status: 503, code: "RATE_LIMIT_UNAVAILABLE" },
    );
    expect(result.response.headers.get("retry-after")).toBe("1");
  });
});

describe("coverage of the table", () => {
  it("exercised every operation in the document with a success (POST /balance: its 501) and a failure", () => {
    for (const operationId of validator.operationIds()) {
      const statuses = [...(seen.get(operationId) ?? [])];
      if (operationId === "fundBalance") expect(statuses, operationId).toEqual([501]);
      else
        expect(statuses.some((s) => s < 300) && statuses.some((s) => s >= 400), `${operationId}: ${statuses}`).toBe(
          true,
        );
    }
  });
});
