// The API's rules (docs/api.md) where a client most easily trips, over real HTTP: history per key, the
// invoice's echo of identifiers, replays that answer through the switches and catalog changes,
// GET /my-ip past the allowlist, missing pid/trxid, a code on every failure, and the ranking of
// order references.
import { afterEach, describe, expect, it } from "vitest";
import { errorCatalogue, type ErrorKey } from "@/lib/http/errors";
import { api, type ApiResult } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { setServerSwitch } from "../helpers/switches";

useCleanDatabase({ checkBooks: true });

function expectFailure(res: ApiResult, code: ErrorKey) {
  expect(res.status, res.text).toBe(errorCatalogue[code].status);
  expect(res.json).toMatchObject({ success: false, code });
}

describe("GET /history lists the calling key's orders only", () => {
  it("two keys of one account each see their own orders, counts and pages in both modes; GET /orders/:orderId reads across keys", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const second = await issueTestKey(account.accountId);
    const mine: string[] = [];
    const theirs: string[] = [];
    for (let i = 0; i < 3; i++)
      mine.push((await order(account.key, { pid: "SVCBR60", trxid: newTrxid("a"), userId: "1" })).json.orderId);
    for (let i = 0; i < 2; i++)
      theirs.push((await order(second.key, { pid: "SVCBR60", trxid: newTrxid("b"), userId: "2" })).json.orderId);

    const simpleA = await api("/history", { key: account.key });
    expect(simpleA.status).toBe(200);
    expect(simpleA.json.count).toBe(3);
    expect(simpleA.json.orders.map((o: any) => o.orderId)).toEqual([...mine].reverse());
    const simpleB = await api("/history?limit=200", { key: second.key });
    expect(simpleB.json.count).toBe(2);
    expect(simpleB.json.orders.map((o: any) => o.orderId)).toEqual([...theirs].reverse());

    const pageA1 = await api("/history?page=1&pageSize=2", { key: account.key });
    expect(pageA1.json).toMatchObject({ count: 2, page: 1, pageSize: 2, total: 3, hasMore: true });
    expect(pageA1.json.orders.map((o: any) => o.orderId)).toEqual([mine[2], mine[1]]);
    const pageA2 = await api("/history?page=2&pageSize=2", { key: account.key });
    expect(pageA2.json).toMatchObject({ count: 1, total: 3, hasMore: false });
    expect(pageA2.json.orders.map((o: any) => o.orderId)).toEqual([mine[0]]);
    const pageB = await api("/history?page=1&pageSize=2", { key: second.key });
    expect(pageB.json).toMatchObject({ count: 2, total: 2, hasMore: false });
    expect(pageB.json.orders.map((o: any) => o.orderId)).toEqual([...theirs].reverse());

    // The account's orders are still one account's: either key reads the other's order by id.
    expect((await api(`/orders/${theirs[0]}`, { key: account.key })).json.orderId).toBe(theirs[0]);
    expect((await api(`/orders/${mine[0]}`, { key: second.key })).json.orderId).toBe(mine[0]);
  });
});

describe("the invoice echoes userId, zoneId and serverId as sent", () => {
  it("echoes the label and the spacing sent, stores the canonical form for the supplier, and replays the same", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const gacha = { pid: "SVCGA60", trxid: newTrxid(), userId: " 8001 ", serverId: "NA" };
    const placed = await order(account.key, gacha);
    expect(placed.status).toBe(200);
    expect(placed.json).toMatchObject({ userId: " 8001 ", serverId: "NA" });
    const row = await sqlRow(`SELECT user_id, server_id FROM orders WHERE public_id = $1`, [placed.json.orderId]);
    expect(row).toEqual({ user_id: "8001", server_id: "america" });
    // A repeat that differs only in form is the same request, and answers the stored invoice.
    const repeat = await order(account.key, { ...gacha, userId: "8001", serverId: "america" });
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    expect(repeat.text).toBe(placed.text);
    expect((await api(`/orders/${placed.json.orderId}`, { key: account.key })).json).toMatchObject({
      userId: " 8001 ",
      serverId: "NA",
    });
    expect((await api("/history", { key: account.key })).json.orders[0]).toMatchObject({
      userId: " 8001 ",
      serverId: "NA",
    });

    const moba = await order(account.key, { pid: "SVCMB86", trxid: newTrxid(), userId: 778899, zoneId: "02001" });
    expect(moba.json).toMatchObject({ userId: "778899", zoneId: "02001" });
  });
});

describe("a replay always answers", () => {
  afterEach(async () => {
    await setServerSwitch("none", (await createAccount()).key);
  });

  it("during MAINTENANCE returns the stored invoice byte for byte, also after the pack is disabled and repriced; new orders stay refused", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const body = { pid: "SVCBR325", trxid: newTrxid(), userId: "4242" };
    const placed = await order(account.key, body);
    expect(placed.status).toBe(200);
    const stored = (await order(account.key, body)).text;
    expect(stored).toBe(placed.text);

    await setServerSwitch("MAINTENANCE", account.key);
    const during = await order(account.key, body);
    expect(during.status).toBe(200);
    expect(during.headers.get("idempotent-replayed")).toBe("true");
    expect(during.text).toBe(stored);

    await sql(`UPDATE products SET active = false, price_cents = 777 WHERE catalog_id = 'SVCBR325'`);
    await sql(`UPDATE game_lines SET orderable = false WHERE slug = 'br'`);
    try {
      const afterChanges = await order(account.key, body);
      expect(afterChanges.status).toBe(200);
      expect(afterChanges.headers.get("idempotent-replayed")).toBe("true");
      expect(afterChanges.text).toBe(stored);

      // A new order is refused, and nothing is written or charged.
      const fresh = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "1" });
      expect(fresh.json).toEqual({ success: false, error: "MAINTENANCE", code: "MAINTENANCE" });
      expect(fresh.status).toBe(503);
      // A different body under the same trxid is still a mismatch, not a replay.
      expectFailure(await order(account.key, { ...body, userId: "4243" }), "IDEMPOTENCY_MISMATCH");
      // Bodies that cannot be a repeat are refused by the switch.
      expectFailure(await order(account.key, { pid: "SVCBR325", userId: "4242" }), "MAINTENANCE");
      expectFailure(
        await api("/orders", { key: account.key, rawBody: "{oops", headers: { "content-type": "application/json" } }),
        "MAINTENANCE",
      );

      await setServerSwitch("none", account.key);
      // With the switch off, the disabled, repriced pack still replays its order.
      const afterSwitch = await order(account.key, body);
      expect(afterSwitch.text).toBe(stored);
      expect(afterSwitch.headers.get("idempotent-replayed")).toBe("true");
    } finally {
      await sql(`UPDATE products SET active = true, price_cents = 499 WHERE catalog_id = 'SVCBR325'`);
      await sql(`UPDATE game_lines SET orderable = true WHERE slug = 'br'`);
    }
    expect(await sql(`SELECT count(*)::int AS n FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([
      { n: 1 },
    ]);
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId])).balance_cents).toBe(
      10_000 - 499,
    );
  });

  it("during API_ORDER_DISABLED, and after the stock ran out, a game-key order replays; another key of the account is FORBIDDEN", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const other = await issueTestKey(account.accountId);
    const body = { pid: "SVCGKINDIE", trxid: newTrxid(), quantity: 1 };
    const placed = await order(account.key, body);
    expect(placed.json.orderCreated).toBe(true);
    const stored = (await order(account.key, body)).text;

    const { stock } = await sqlRow(
      `SELECT count(*)::int AS stock FROM inventory_codes c JOIN products p ON p.id = c.product_id WHERE p.catalog_id = 'SVCGKINDIE' AND c.status = 'available'`,
    );
    const drained = await order(account.key, { pid: "SVCGKINDIE", trxid: newTrxid(), quantity: stock });
    expect(drained.json.orderCreated).toBe(true);
    expectFailure(
      await order(account.key, { pid: "SVCGKINDIE", trxid: newTrxid(), quantity: 1 }),
      "INSUFFICIENT_STOCK",
    );
    const outOfStock = await order(account.key, body);
    expect(outOfStock.text).toBe(stored);

    await setServerSwitch("API_ORDER_DISABLED", account.key);
    const during = await order(account.key, body);
    expect(during.status).toBe(200);
    expect(during.headers.get("idempotent-replayed")).toBe("true");
    expect(during.text).toBe(stored);
    expectFailure(await order(other.key, body), "FORBIDDEN");
    expectFailure(await order(account.key, { pid: "SVCGC10", trxid: newTrxid(), quantity: 1 }), "API_ORDER_DISABLED");
  });
});

describe("GET /my-ip and the IP allowlist", () => {
  it("answers a key whose allowlist refuses the caller, while /balance from the same caller is IP_NOT_ALLOWED", async () => {
    const account = await createAccount({ balanceCents: 100 });
    await sql(`INSERT INTO ip_allow_entries (api_key_id, cidr) VALUES ($1, '203.0.113.0/24')`, [account.keyId]);
    const balance = await api("/balance", { key: account.key });
    expectFailure(balance, "IP_NOT_ALLOWED");
    const myIp = await api("/my-ip", { key: account.key });
    expect(myIp.status).toBe(200);
    expect(myIp.json).toEqual({ success: true, ip: "127.0.0.1" });
    // It still counts toward the key's limits.
    expect(myIp.headers.get("ratelimit-policy")).toBeTruthy();
    expect(myIp.headers.get("ratelimit")).toBeTruthy();
  });

  it("answers a key that requires a list and has none yet (IP_ALLOWLIST_REQUIRED elsewhere)", async () => {
    const account = await createAccount();
    await sql(`UPDATE api_keys SET require_ip_allowlist = true WHERE id = $1`, [account.keyId]);
    expectFailure(await api("/balance", { key: account.key }), "IP_ALLOWLIST_REQUIRED");
    expect((await api("/my-ip", { key: account.key })).json).toEqual({ success: true, ip: "127.0.0.1" });
  });

  it("still checks the key and the account state", async () => {
    expectFailure(await api("/my-ip", { key: "svc_" + "Q".repeat(40) }), "INVALID_API_KEY");
    const banned = await createAccount();
    await sql(`UPDATE accounts SET banned_at = now() WHERE id = $1`, [banned.accountId]);
    await sql(`INSERT INTO ip_allow_entries (api_key_id, cidr) VALUES ($1, '203.0.113.0/24')`, [banned.keyId]);
    expectFailure(await api("/my-ip", { key: banned.key }), "ACCOUNT_BANNED");
    const off = await createAccount({ apiEnabled: false });
    expectFailure(await api("/my-ip", { key: off.key }), "API_DISABLED");
  });
});

describe("a missing trxid or pid is INVALID REQUEST", () => {
  const missing: [string, Record<string, unknown>][] = [];
  for (const [field, value] of [
    ["trxid", undefined],
    ["trxid", null],
    ["trxid", ""],
    ["trxid", "   "],
    ["pid", undefined],
    ["pid", null],
    ["pid", ""],
    ["pid", "  "],
  ] as const) {
    const body: Record<string, unknown> = { pid: "SVCBR60", trxid: `m-${field}-${String(value)}`, userId: "1" };
    if (value === undefined) delete body[field];
    else body[field] = value;
    missing.push([`${field} ${value === undefined ? "absent" : JSON.stringify(value)}`, body]);
  }
  missing.push(["trxid null under its alias idTrx", { PID: "SVCBR60", idTrx: null, userId: "1" }]);

  it.each(missing)("%s", async (_name, body) => {
    const account = await createAccount({ balanceCents: 1000 });
    const res = await order(account.key, body);
    expect(res.json).toMatchObject({ success: false, error: "INVALID REQUEST", code: "INVALID_REQUEST" });
    expect(res.status).toBe(400);
    expect(await sql(`SELECT 1 FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([]);
  });

  it("a null field gives way to a value under its alias", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const trxid = newTrxid();
    const res = await order(account.key, { pid: null, PID: "SVCBR60", trxid: null, trxId: trxid, userId: "1" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ orderCreated: true, trxid });
  });

  it.each([
    ["trxid of the wrong type", { pid: "SVCBR60", trxid: { id: 1 }, userId: "1" }],
    ["pid of the wrong type", { pid: 60, trxid: "t-wrong", userId: "1" }],
    ["trxid false", { pid: "SVCBR60", trxid: false, userId: "1" }],
  ])("other schema failures stay INVALID BODY: %s", async (_name, body) => {
    const account = await createAccount({ balanceCents: 1000 });
    const res = await order(account.key, body);
    expect(res.json).toMatchObject({ success: false, error: "INVALID BODY", code: "INVALID_BODY" });
  });
});

describe("every failure carries a code", () => {
  it("answers each failure with its catalogue status, documented error string and code", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const key = account.key;
    const cases: [ErrorKey, () => Promise<ApiResult>][] = [
      ["MISSING_API_KEY", () => api("/balance")],
      ["INVALID_API_KEY_FORMAT", () => api("/balance", { key: "nope" })],
      ["INVALID_API_KEY", () => api("/balance", { key: "svc_" + "X".repeat(40) })],
      ["INVALID_BODY", () => order(key, { pid: "SVCBR60", trxid: "c1", userId: { x: 1 } })],
      ["INVALID_REQUEST", () => order(key, { pid: "SVCBR60", userId: "1" })],
      ["INVALID_REQUEST", () => api("/history?limit=0", { key })],
      ["UNKNOWN_PID", () => order(key, { pid: "SVCBR61", trxid: "c2", userId: "1" })],
      [
        "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD",
        () => order(key, { pid: "SVCBR60", trxid: "c3", userId: "1", quantity: 1 }),
      ],
      ["INVALID_JSON", () => api("/orders", { key, rawBody: "{", headers: { "content-type": "application/json" } })],
      ["ORDER_NOT_FOUND", () => api("/orders/SVCAPI-BR-1-000000", { key })],
      ["NOT_IMPLEMENTED", () => api("/balance", { key, method: "POST" })],
      ["NOT_FOUND", () => api("/nope", { key })],
      ["METHOD_NOT_ALLOWED", () => api("/services", { key, method: "DELETE" })],
      [
        "UNSUPPORTED_MEDIA_TYPE",
        () => api("/orders", { key, rawBody: "{}", headers: { "content-type": "text/plain" } }),
      ],
      ["INVALID_CODE", () => api("/rdmbr", { key, body: { playerId: "5551234", code: "nope" } })],
      ["CODE_USED", () => api("/rdmbr", { key, body: { playerId: "5551234", code: "USED-1234" } })],
      ["PLAYER_NOT_FOUND", () => api("/brvvfy", { key, body: { playerId: "5550404" } })],
    ];
    for (const [code, call] of cases) {
      const res = await call();
      expect(res.status, code).toBe(errorCatalogue[code].status);
      expect(res.json, code).toMatchObject({ success: false, code, error: errorCatalogue[code].error });
    }
  });
});

describe("order references: one ranking, documented, deterministic", () => {
  it("a number that is both an order number and a trxid of yours reads the trxid's order; ?by=id reads the other; the header says which", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const byId = await order(account.key, { pid: "SVCBR60", trxid: newTrxid("first"), userId: "1" });
    // The order number: the middle of the public id, read in base36.
    const id = parseInt(byId.json.orderId.split("-")[2], 36);
    const byTrxid = await order(account.key, {
      pid: "SVCBR325",
      trxid: String(id),
      userId: "2",
      idempotencyKey: `idem-${id}`,
    });
    expect(byTrxid.json.orderId).not.toBe(byId.json.orderId);

    for (let i = 0; i < 3; i++) {
      const res = await api(`/orders/${id}`, { key: account.key });
      expect(res.status).toBe(200);
      expect(res.json.orderId).toBe(byTrxid.json.orderId);
      expect(res.headers.get("order-matched-by")).toBe("trxid");
    }
    const forced = await api(`/orders/${id}?by=id`, { key: account.key });
    expect(forced.json.orderId).toBe(byId.json.orderId);
    expect(forced.headers.get("order-matched-by")).toBe("id");

    const publicForm = await api(`/orders/${byId.json.orderId.toLowerCase()}`, { key: account.key });
    expect(publicForm.json.orderId).toBe(byId.json.orderId);
    expect(publicForm.headers.get("order-matched-by")).toBe("publicId");
    const idem = await api(`/orders/idem-${id}`, { key: account.key });
    expect(idem.json.orderId).toBe(byTrxid.json.orderId);
    expect(idem.headers.get("order-matched-by")).toBe("idempotencyKey");
    expect((await api(`/orders/${id}?by=trxid`, { key: account.key })).json.orderId).toBe(byTrxid.json.orderId);
    expectFailure(await api(`/orders/idem-${id}?by=trxid`, { key: account.key }), "ORDER_NOT_FOUND");
    expectFailure(await api(`/orders/${id}?by=publicId`, { key: account.key }), "ORDER_NOT_FOUND");
    expectFailure(await api(`/orders/${id}?by=name`, { key: account.key }), "INVALID_REQUEST");

    // A trxid wins over an idempotency key that another order uses as the same text.
    const trxOwner = await order(account.key, {
      pid: "SVCBR60",
      trxid: "shared-ref",
      userId: "3",
      idempotencyKey: "k-shared-1",
    });
    await order(account.key, { pid: "SVCBR60", trxid: "other-ref", userId: "4", idempotencyKey: "shared-ref" });
    const shared = await api("/orders/shared-ref", { key: account.key });
    expect(shared.json.orderId).toBe(trxOwner.json.orderId);
    expect(shared.headers.get("order-matched-by")).toBe("trxid");

    // Another account's order is not found by any form, even where its trxid is the same number.
    const stranger = await createAccount({ balanceCents: 1000 });
    expectFailure(await api(`/orders/${id}`, { key: stranger.key }), "ORDER_NOT_FOUND");
    expectFailure(await api(`/orders/${byId.json.orderId}`, { key: stranger.key }), "ORDER_NOT_FOUND");
    const strangers = await order(stranger.key, { pid: "SVCBR60", trxid: String(id), userId: "9" });
    expect((await api(`/orders/${id}`, { key: stranger.key })).json.orderId).toBe(strangers.json.orderId);
    expect((await api(`/orders/${id}`, { key: account.key })).json.orderId).toBe(byTrxid.json.orderId);
  });

  it("the OpenAPI document states the ranking that docs/api.md gives", async () => {
    const document = (await api("/openapi.json")).json;
    const operation = document.paths["/orders/{orderId}"].get;
    expect(operation.description).toContain("publicId, trxid (the newest order with it), idempotencyKey, order number");
    expect(operation.parameters.find((p: any) => p.name === "by").schema.enum).toEqual([
      "publicId",
      "trxid",
      "idempotencyKey",
      "id",
    ]);
    expect(operation.responses["200"].headers["Order-Matched-By"]).toBeDefined();
  });
});
