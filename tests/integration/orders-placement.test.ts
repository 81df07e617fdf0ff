// The order rules (docs/api.md: Orders, Order lifecycle) on placing orders, and the idempotency rules, over real HTTP.
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/lib/db/pool";
import { placeOrder } from "@/lib/orders/sql/place-order";
import { readOrderRequest, type OrderRequest } from "@/lib/orders/validate-order-request";
import type { OrderBody } from "@/lib/api-schemas/order-schemas";
import { authenticateApiKey } from "@/lib/auth/authenticate-api-key";
import { ApiError } from "@/lib/http/errors";
import { parsePublicOrderId } from "@/lib/orders/public-order-id";
import { enqueueFulfilment } from "@/lib/fulfilment/sql/enqueue-fulfilment";
import { api } from "../helpers/api";
import { sql, sqlRow, waitUntilBlockedBy } from "../helpers/db";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { setServerSwitch } from "../helpers/switches";

useCleanDatabase({ checkBooks: true });

async function balanceCents(accountId: number) {
  return (await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents as number;
}

/** The body as the route hands it to placeOrder. */
function orderRequest(body: OrderBody): OrderRequest {
  const request = readOrderRequest(body);
  if (request instanceof ApiError) throw request;
  return request;
}

describe("a successful placement", () => {
  it("answers an invoice: orderCreated, a public id, processing, and charges the wallet once", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const trxid = newTrxid();
    const res = await order(account.key, { pid: "SVCBR60", trxid, userId: "5123456" });
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(res.json).toEqual({
      success: true,
      orderCreated: true,
      orderId: expect.stringMatching(/^SVCAPI-BR-[0-9A-Z]+-[0-9A-Z]{6}$/),
      trxid,
      status: "processing",
      game: "br",
      packName: "60 UC",
      pid: "SVCBR60",
      amountUsd: 0.99,
      quantity: 1,
      userId: "5123456",
      createdAt: expect.any(String),
      livemode: true,
    });
    expect(await balanceCents(account.accountId)).toBe(1000 - 99);
    const row = await sqlRow(`SELECT unit_price_cents, catalog_id, pack_name FROM orders WHERE public_id = $1`, [
      res.json.orderId,
    ]);
    expect(row).toEqual({ unit_price_cents: 99, catalog_id: "SVCBR60", pack_name: "60 UC" });
    const events = await sql(
      `SELECT from_status, to_status FROM order_events e JOIN orders o ON o.id = e.order_id WHERE o.public_id = $1`,
      [res.json.orderId],
    );
    expect(events).toEqual([{ from_status: null, to_status: "processing" }]);
    // One fulfilment job, keyed by the new order's id.
    const { id } = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [res.json.orderId]);
    const jobs = await sql(`SELECT task_identifier, key, revision FROM graphile_worker.jobs WHERE key LIKE $1`, [
      `%:${id}`,
    ]);
    expect(jobs).toEqual([{ task_identifier: "fulfil_order", key: `place:${id}`, revision: 0 }]);
  });

  it("placed by placeOrder: charged, refused for balance, a key line with its code reserved", async () => {
    const account = await createAccount({ balanceCents: 600 });
    const caller = await authenticateApiKey(account.key);
    const charged = await placeOrder(
      caller,
      orderRequest({ pid: "SVCBR60", trxid: newTrxid("plain"), userId: "5123456" }),
    );
    expect(charged.invoice).toMatchObject({ orderCreated: true, status: "processing" });
    const keyLine = await placeOrder(
      caller,
      orderRequest({ pid: "SVCGKINDIE", trxid: newTrxid("plain"), quantity: 1 }),
    );
    expect(keyLine.invoice).toMatchObject({ orderCreated: true, status: "processing", quantity: 1 });
    const refused = await placeOrder(
      caller,
      orderRequest({ pid: "SVCBR325", trxid: newTrxid("plain"), userId: "5123456" }),
    );
    expect(refused.invoice).toMatchObject({ orderCreated: false, status: "cancelled", error: "INSUFFICIENT BALANCE" });
    const reserved = await sql(
      `SELECT count(*)::int AS n FROM inventory_codes c JOIN orders o ON o.id = c.order_id
        WHERE o.public_id = $1 AND c.status = 'reserved'`,
      [keyLine.invoice.orderId],
    );
    expect(reserved).toEqual([{ n: 1 }]);
    const spent = 600 - (await balanceCents(account.accountId));
    expect(spent).toBe(Math.round((charged.invoice.amountUsd + keyLine.invoice.amountUsd) * 100));
  });

  it("placed by placeOrder: the public id names the new order, and a repeat is its replay", async () => {
    const account = await createAccount({ balanceCents: 600 });
    const caller = await authenticateApiKey(account.key);
    expect(caller).toMatchObject({ keyId: account.keyId, accountId: account.accountId });
    const request = orderRequest({ pid: "SVCBR60", trxid: newTrxid("ride"), userId: "5123456" });
    const placed = await placeOrder(caller, request);
    expect(placed.invoice).toMatchObject({ orderCreated: true, status: "processing" });
    const { id } = await sqlRow(`SELECT id FROM orders WHERE account_id = $1 AND trxid = $2`, [
      account.accountId,
      request.trxid,
    ]);
    expect(parsePublicOrderId(placed.invoice.orderId)).toBe(id);

    const replayed = await placeOrder(caller, request);
    expect(replayed).toEqual({ invoice: placed.invoice, replayed: true });
    expect(await balanceCents(account.accountId)).toBe(600 - 99);
  });

  it("a bad key answers first, whatever the body", async () => {
    const account = await createAccount({ balanceCents: 600 });
    const wrongKey = account.key.slice(0, -4) + (account.key.endsWith("AAAA") ? "BBBB" : "AAAA");
    const bodies = [
      { rawBody: '{"pid": "SVCBR60",', headers: { "content-type": "application/json" } },
      { rawBody: JSON.stringify({ pid: "SVCBR60" }), headers: { "content-type": "text/plain" } },
      { body: { pid: "SVCBR60", trxid: "big", userId: "x".repeat(20_000) } },
      { body: { pid: "SVCBR60", trxid: newTrxid("nokey"), userId: "5123456" } },
    ];
    for (const call of bodies) {
      const missing = await api("/orders", { ...call, method: "POST" });
      expect(missing.json.code).toBe("MISSING_API_KEY");
      const wrong = await api("/orders", { ...call, key: wrongKey });
      expect(wrong.json.code).toBe("INVALID_API_KEY");
    }
    expect(await sql(`SELECT id FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([]);
    expect(await balanceCents(account.accountId)).toBe(600);
  });

  it("the writing statement takes the key's in-flight lock itself: held elsewhere, DUPLICATE_IN_FLIGHT and nothing written", async () => {
    const account = await createAccount({ balanceCents: 600 });
    const body = { pid: "SVCBR60", trxid: newTrxid("held"), userId: "5123456" };
    const holder = await getPool().connect();
    try {
      // The lock a placement of this key holds while its statement runs (lib/orders/sql/place-order.ts).
      await holder.query("BEGIN");
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1::int || ':' || $2::text, 0))`, [
        account.accountId,
        body.trxid,
      ]);
      const refused = await order(account.key, body);
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ success: false, error: "DUPLICATE_IN_FLIGHT", code: "DUPLICATE_IN_FLIGHT" });
      expect(await sql(`SELECT id FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([]);
      expect(await sql(`SELECT order_count FROM api_keys WHERE id = $1`, [account.keyId])).toEqual([
        { order_count: 0 },
      ]);
      expect(await balanceCents(account.accountId)).toBe(600);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    const placed = await order(account.key, body);
    expect(placed.json).toMatchObject({ orderCreated: true, status: "processing" });
    expect(await balanceCents(account.accountId)).toBe(600 - 99);
  });

  it("an order with the same key committed while the writing statement runs is answered as its replay", async () => {
    const account = await createAccount({ balanceCents: 600 });
    const caller = await authenticateApiKey(account.key);
    const body = { pid: "SVCBR60", userId: "5123456" };
    const original = await order(account.key, { ...body, trxid: newTrxid("original") });
    expect(original.json.orderCreated).toBe(true);
    const request = orderRequest({ ...body, trxid: newTrxid("meanwhile") });
    // The original takes this request's key in a transaction still open while the placement looks
    // the key up (no order yet) and then writes: its insert waits on the original's key.
    const holder = await getPool().connect();
    let placing: Promise<Awaited<ReturnType<typeof placeOrder>>> | undefined;
    try {
      await holder.query("BEGIN");
      await holder.query(`UPDATE orders SET trxid = $2, idempotency_key = $2 WHERE public_id = $1`, [
        original.json.orderId,
        request.trxid,
      ]);
      placing = placeOrder(caller, request);
      placing.catch(() => undefined);
      await waitUntilBlockedBy(holder);
      await holder.query("COMMIT");
    } catch (error) {
      await holder.query("ROLLBACK");
      throw error;
    } finally {
      holder.release();
    }
    const placed = await placing;
    expect(placed.replayed).toBe(true);
    expect(placed.invoice.orderId).toBe(original.json.orderId);
    expect(placed.invoice.trxid).toBe(request.trxid);
    expect(await sql(`SELECT key_seq FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([
      { key_seq: 1 },
    ]);
    expect(await sql(`SELECT order_count FROM api_keys WHERE id = $1`, [account.keyId])).toEqual([{ order_count: 1 }]);
    expect(await balanceCents(account.accountId)).toBe(600 - 99);
  });

  it("a re-poll of an order replaces the one already waiting instead of queueing a second", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const res = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "5123456" });
    const id = (await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [res.json.orderId])).id as number;
    const later = new Date(Date.now() + 3_600_000);
    await enqueueFulfilment(getPool(), id, new Date(Date.now() + 60_000));
    await enqueueFulfilment(getPool(), id, later);
    const jobs = await sql(`SELECT key, run_at FROM graphile_worker.jobs WHERE key IN ($1, $2) ORDER BY key`, [
      `order:${id}`,
      `place:${id}`,
    ]);
    // One re-poll, due at the later time, and the placement's own job, untouched.
    expect(jobs).toEqual([
      { key: `order:${id}`, run_at: later },
      { key: `place:${id}`, run_at: expect.any(Date) },
    ]);
    expect((jobs[1]!.run_at as Date).getTime()).toBeLessThan(Date.now() + 1000);
  });

  it("places nothing when the new order's job key is already held (a job left from earlier), and places once it is gone", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const body = { pid: "SVCBR60", trxid: newTrxid(), userId: "5123456" };
    // The placement's lookup takes the next id of the sequence: hold that id's job key.
    const { last } = await sqlRow(`SELECT nextval(pg_get_serial_sequence('orders', 'id'))::int AS last`);
    const heldKey = `place:${last + 1}`;
    await sql(
      `SELECT graphile_worker.add_job('fulfil_order', json_build_object('orderId', 0), job_key := $1, run_at := now() + interval '1 day')`,
      [heldKey],
    );
    const refused = await order(account.key, body);
    expect(refused.status).toBe(500);
    expect(refused.json).toMatchObject({ success: false, code: "INTERNAL_ERROR" });
    expect(await sql(`SELECT count(*)::int AS n FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([
      { n: 0 },
    ]);
    expect(await sql(`SELECT order_count FROM api_keys WHERE id = $1`, [account.keyId])).toEqual([{ order_count: 0 }]);
    expect(await balanceCents(account.accountId)).toBe(1000);
    // The held job is as it was: the failed statement's bump of its revision was rolled back.
    expect(
      await sql(`SELECT revision, run_at > now() AS waiting FROM graphile_worker.jobs WHERE key = $1`, [heldKey]),
    ).toEqual([{ revision: 0, waiting: true }]);

    await sql(`SELECT graphile_worker.remove_job($1)`, [heldKey]);
    const placed = await order(account.key, body);
    expect(placed.status).toBe(200);
    expect(placed.json.orderCreated).toBe(true);
    expect(await balanceCents(account.accountId)).toBe(1000 - 99);
  });

  it("accepts every documented alias, numbers for identifier fields, and ignores unknown fields", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const res = await order(account.key, {
      PID: "SVCMB86",
      idTrx: newTrxid(),
      userID: 778899,
      zoneId: 2001,
      extra: { nested: [1] },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ orderCreated: true, game: "moba", userId: "778899", zoneId: "2001" });
    for (const alias of ["trxId", "idtrx"]) {
      const again = await order(account.key, { pid: "SVCBR60", [alias]: newTrxid(), userId: "1" });
      expect(again.json.orderCreated, alias).toBe(true);
    }
    const withKey = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), idempotency: "idem-1", userId: "1" });
    expect(withKey.status).toBe(200);
    expect(
      (await sqlRow(`SELECT idempotency_key FROM orders WHERE public_id = $1`, [withKey.json.orderId])).idempotency_key,
    ).toBe("idem-1");
  });

  it("resolves serverId labels and aliases to their values for the supplier, and echoes what was sent", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    for (const [sent, stored] of [
      ["Asia", "asia"],
      ["NA", "america"],
      ["europe", "europe"],
      ["TW_HK_MO", "tw_hk_mo"],
    ]) {
      const res = await order(account.key, { pid: "SVCGA60", trxid: newTrxid(), userId: "8001", serverId: sent });
      expect(res.status, sent).toBe(200);
      expect(res.json.serverId).toBe(sent);
      const row = await sqlRow(`SELECT server_id FROM orders WHERE public_id = $1`, [res.json.orderId]);
      expect(row.server_id, sent).toBe(stored);
    }
  });

  it("reserves codes for key and gift-card lines and charges price times quantity", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const res = await order(account.key, { pid: "SVCGC10", quantity: 2, trxid: newTrxid() });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      orderCreated: true,
      game: "giftcards",
      quantity: 2,
      amountUsd: 20,
      status: "processing",
    });
    expect(res.json.codes).toBeUndefined();
    const held = await sql(
      `SELECT c.status FROM inventory_codes c JOIN orders o ON o.id = c.order_id WHERE o.public_id = $1`,
      [res.json.orderId],
    );
    expect(held).toEqual([{ status: "reserved" }, { status: "reserved" }]);
    expect(await balanceCents(account.accountId)).toBe(10_000 - 2000);
  });
});

describe("placement failures (docs/api.md: Requests and failures; docs/errors.md)", () => {
  let key: string;
  let accountId: number;
  beforeAll(async () => {
    const account = await createAccount({ balanceCents: 100_000 });
    key = account.key;
    accountId = account.accountId;
  });

  const cases: [string, Record<string, unknown>, number, Record<string, unknown>][] = [
    ["trxid missing", { pid: "SVCBR60", userId: "1" }, 400, { error: "INVALID REQUEST" }],
    ["pid missing", { trxid: "x1", userId: "1" }, 400, { error: "INVALID REQUEST" }],
    ["unknown pid", { pid: "SVCBR61", trxid: "x2", userId: "1" }, 400, { error: "UNKNOWN PID" }],
    ["ad-hoc pack name as pid", { pid: "60 UC", trxid: "x3", userId: "1" }, 400, { error: "UNKNOWN PID" }],
    ["userId missing on br", { pid: "SVCBR60", trxid: "x4" }, 400, { error: "INVALID REQUEST" }],
    ["zoneId missing on moba", { pid: "SVCMB86", trxid: "x5", userId: "1" }, 400, { error: "INVALID REQUEST" }],
    [
      "zoneId not numeric",
      { pid: "SVCMB86", trxid: "x6", userId: "1", zoneId: "abc" },
      400,
      { error: "INVALID REQUEST" },
    ],
    ["serverId missing on gacha", { pid: "SVCGA60", trxid: "x7", userId: "1" }, 400, { error: "INVALID REQUEST" }],
    [
      "serverId outside serverIdOptions",
      { pid: "SVCGA60", trxid: "x8", userId: "1", serverId: "mars" },
      400,
      { error: "INVALID REQUEST" },
    ],
    [
      "quantity on a top-up line",
      { pid: "SVCBR60", trxid: "x9", userId: "1", quantity: 1 },
      400,
      { error: "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD" },
    ],
    [
      "quantity above 10 on a top-up line",
      { pid: "SVCBR60", trxid: "x20", userId: "1", quantity: 11 },
      400,
      { error: "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD" },
    ],
    ["userId empty on br", { pid: "SVCBR60", trxid: "x21", userId: "" }, 400, { error: "INVALID REQUEST" }],
    ["userId blank on br", { pid: "SVCBR60", trxid: "x22", userId: "  " }, 400, { error: "INVALID REQUEST" }],
    ["userId null on br", { pid: "SVCBR60", trxid: "x23", userId: null }, 400, { error: "INVALID REQUEST" }],
    ["quantity above 10", { pid: "SVCGC10", trxid: "x10", quantity: 11 }, 400, { error: "INVALID BODY" }],
    ["quantity zero", { pid: "SVCGC10", trxid: "x11", quantity: 0 }, 400, { error: "INVALID BODY" }],
    ["quantity negative", { pid: "SVCGC10", trxid: "x12", quantity: -1 }, 400, { error: "INVALID BODY" }],
    ["quantity fractional", { pid: "SVCGC10", trxid: "x13", quantity: 1.5 }, 400, { error: "INVALID BODY" }],
    ["quantity as a string", { pid: "SVCGC10", trxid: "x14", quantity: "2" }, 400, { error: "INVALID BODY" }],
    ["pid of the wrong type", { pid: 60, trxid: "x15", userId: "1" }, 400, { error: "INVALID BODY" }],
    ["userId as an object", { pid: "SVCBR60", trxid: "x16", userId: { id: 1 } }, 400, { error: "INVALID BODY" }],
    ["a NUL byte in userId", { pid: "SVCBR60", trxid: "x18", userId: "a\u0000b" }, 400, { error: "INVALID BODY" }],
    [
      "a control character in idempotencyKey",
      { pid: "SVCBR60", trxid: "x19", userId: "1", idempotencyKey: "k\u0007" },
      400,
      { error: "INVALID BODY" },
    ],
    [
      "more codes than in stock",
      { pid: "SVCGKAAA", trxid: "x17", quantity: 4 },
      400,
      { error: "INSUFFICIENT STOCK", code: "INSUFFICIENT_STOCK" },
    ],
  ];

  it.each(cases)("%s", async (_name, body, status, expected) => {
    const before = await balanceCents(accountId);
    const res = await order(key, body);
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ success: false, ...expected });
    expect(await balanceCents(accountId)).toBe(before);
    if (typeof body.trxid === "string") {
      expect(await sql(`SELECT 1 FROM orders WHERE account_id = $1 AND trxid = $2`, [accountId, body.trxid])).toEqual(
        [],
      );
    }
  });

  it("GAME DISABLED for a line that does not take orders, PRODUCT_DISABLED for an inactive pack", async () => {
    await sql(`UPDATE game_lines SET orderable = false WHERE slug = 'br'`);
    await sql(`UPDATE products SET active = false WHERE catalog_id = 'SVCMB172'`);
    try {
      expect((await order(key, { pid: "SVCBR60", trxid: newTrxid(), userId: "1" })).json).toEqual({
        success: false,
        error: "GAME DISABLED",
        code: "GAME_DISABLED",
      });
      const disabled = await order(key, { pid: "SVCMB172", trxid: newTrxid(), userId: "1", zoneId: "1" });
      expect(disabled.status).toBe(400);
      expect(disabled.json).toMatchObject({ success: false, code: "PRODUCT_DISABLED" });
    } finally {
      await sql(`UPDATE game_lines SET orderable = true`);
      await sql(`UPDATE products SET active = true`);
    }
  });

  it("INVALID_PRODUCT for a top-up pack that has no supplier sku", async () => {
    await sql(`UPDATE products SET supplier_sku = NULL WHERE catalog_id = 'SVCBR660'`);
    try {
      const res = await order(key, { pid: "SVCBR660", trxid: newTrxid(), userId: "1" });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ success: false, code: "INVALID_PRODUCT" });
    } finally {
      await sql(`UPDATE products SET supplier_sku = 'br-660' WHERE catalog_id = 'SVCBR660'`);
    }
  });

  it("body rules: content type, malformed JSON, size, shape", async () => {
    const noType = await api("/orders", {
      key,
      rawBody: JSON.stringify({ pid: "SVCBR60" }),
      headers: { "content-type": "text/plain" },
    });
    expect(noType.status).toBe(415);
    expect(noType.json).toMatchObject({ success: false, code: "UNSUPPORTED_MEDIA_TYPE" });
    const malformed = await api("/orders", {
      key,
      rawBody: '{"pid": "SVCBR60",',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(401);
    expect(malformed.json).toEqual({ success: false, error: "INVALID JSON", code: "INVALID_JSON" });
    const huge = await api("/orders", { key, body: { pid: "SVCBR60", trxid: "big", userId: "x".repeat(20_000) } });
    expect(huge.status).toBe(413);
    expect(huge.json).toMatchObject({ success: false, code: "PAYLOAD_TOO_LARGE" });
    for (const raw of ["[]", "42", '"text"', "null"]) {
      const res = await api("/orders", { key, rawBody: raw, headers: { "content-type": "application/json" } });
      expect(res.status, raw).toBe(400);
      expect(res.json.error, raw).toBe("INVALID BODY");
    }
    const empty = await api("/orders", { key, method: "POST", headers: { "content-type": "application/json" } });
    expect(empty.status).toBe(400);
    expect(empty.json.error).toBe("INVALID REQUEST");
  });
});

describe("insufficient balance (docs/api.md: insufficient balance is a cancelled invoice)", () => {
  it("answers 200 with a stored cancelled invoice that a replay returns again, and charges nothing", async () => {
    const account = await createAccount({ balanceCents: 50 });
    const trxid = newTrxid();
    const res = await order(account.key, { pid: "SVCBR60", trxid, userId: "1" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      success: true,
      orderCreated: false,
      status: "cancelled",
      error: "INSUFFICIENT BALANCE",
      refunded: false,
    });
    expect(await balanceCents(account.accountId)).toBe(50);
    const replay = await order(account.key, { pid: "SVCBR60", trxid, userId: "1" });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json).toEqual(res.json);
    // Topping up does not revive it: a new charge needs a new trxid.
    await sql(
      `WITH moved AS (UPDATE accounts SET balance_cents = balance_cents + 1000, ledger_count = ledger_count + 1, ledger_last_at = now()
                        WHERE id = $1 RETURNING ledger_count, ledger_last_at)
       INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, actor, account_seq, created_at)
       SELECT $1, 'credit', 1000, 1050, 'test', ledger_count, ledger_last_at FROM moved`,
      [account.accountId],
    );
    expect((await order(account.key, { pid: "SVCBR60", trxid, userId: "1" })).json.status).toBe("cancelled");
    expect((await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "1" })).json.orderCreated).toBe(true);
  });
});

describe("idempotency", () => {
  it("a duplicate after the original returns the same invoice with Idempotent-Replayed: true", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const body = { pid: "SVCGA60", trxid: newTrxid(), userId: "42", serverId: "Asia" };
    const first = await order(account.key, body);
    const second = await order(account.key, { ...body, serverId: "asia" });
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.json).toEqual(first.json);
    expect(await balanceCents(account.accountId)).toBe(1000 - 99);
  });

  it("the same trxid with a different pid, identifiers or quantity is 409 IDEMPOTENCY_MISMATCH", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const trxid = newTrxid();
    await order(account.key, { pid: "SVCBR60", trxid, userId: "42" });
    for (const changed of [
      { pid: "SVCBR325", userId: "42" },
      { pid: "SVCBR60", userId: "43" },
    ]) {
      const res = await order(account.key, { trxid, ...changed });
      expect(res.status).toBe(409);
      expect(res.json).toEqual({
        success: false,
        error: "TRXID REUSED WITH DIFFERENT REQUEST",
        code: "IDEMPOTENCY_MISMATCH",
      });
    }
    const codesTrx = newTrxid();
    await order(account.key, { pid: "SVCGKINDIE", trxid: codesTrx, quantity: 1 });
    expect((await order(account.key, { pid: "SVCGKINDIE", trxid: codesTrx, quantity: 2 })).status).toBe(409);
    expect(await balanceCents(account.accountId)).toBe(10_000 - 99 - 499);
  });

  it("the same trxid from another key of the same account is 403 FORBIDDEN", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const other = await issueTestKey(account.accountId);
    const trxid = newTrxid();
    await order(account.key, { pid: "SVCBR60", trxid, userId: "1" });
    const res = await order(other.key, { pid: "SVCBR60", trxid, userId: "1" });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ success: false, error: "FORBIDDEN", code: "FORBIDDEN" });
  });

  it("trxids of different accounts never collide", async () => {
    const a = await createAccount({ balanceCents: 1000 });
    const b = await createAccount({ balanceCents: 1000 });
    const trxid = newTrxid();
    const first = await order(a.key, { pid: "SVCBR60", trxid, userId: "1" });
    const second = await order(b.key, { pid: "SVCBR325", trxid, userId: "2" });
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.json.orderId).not.toBe(first.json.orderId);
    expect(second.json.packName).toBe("325 UC");
  });
});

describe("concurrency", () => {
  it("50 parallel requests with one trxid create one order and one debit", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const body = { pid: "SVCBR325", trxid: newTrxid(), userId: "77" };
    const answers = await Promise.all(Array.from({ length: 50 }, () => order(account.key, body)));
    const invoices = answers.filter((a) => a.status === 200);
    const inFlight = answers.filter((a) => a.status === 429);
    expect(invoices.length + inFlight.length).toBe(50);
    expect(invoices.length).toBeGreaterThan(0);
    for (const a of inFlight)
      expect(a.json).toEqual({ success: false, error: "DUPLICATE_IN_FLIGHT", code: "DUPLICATE_IN_FLIGHT" });
    const ids = new Set(invoices.map((a) => a.json.orderId));
    expect(ids.size).toBe(1);
    expect(invoices.filter((a) => a.headers.get("idempotent-replayed") !== "true").length).toBe(1);
    expect(await sql(`SELECT id FROM orders WHERE account_id = $1`, [account.accountId])).toHaveLength(1);
    expect(
      await sql(`SELECT id FROM ledger_entries WHERE account_id = $1 AND kind = 'debit'`, [account.accountId]),
    ).toHaveLength(1);
    expect(await balanceCents(account.accountId)).toBe(10_000 - 499);
  });

  it("M parallel distinct orders against a wallet that covers exactly K", async () => {
    const M = 40;
    const K = 13;
    const account = await createAccount({ balanceCents: 499 * K });
    const answers = await Promise.all(
      Array.from({ length: M }, (_, i) =>
        order(account.key, { pid: "SVCBR325", trxid: newTrxid(`m${i}`), userId: "9" }),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.json.orderCreated).length).toBe(K);
    const refused = answers.filter((a) => !a.json.orderCreated);
    expect(refused.length).toBe(M - K);
    for (const a of refused) expect(a.json).toMatchObject({ status: "cancelled", error: "INSUFFICIENT BALANCE" });
    expect(await balanceCents(account.accountId)).toBe(0);
  });

  it("parallel orders for the last codes of a product never hand one code to two orders", async () => {
    const account = await createAccount({ balanceCents: 100_000 });
    const { count } = await sqlRow(
      `SELECT count(*)::int AS count FROM inventory_codes c JOIN products p ON p.id = c.product_id WHERE p.catalog_id = 'SVCGKINDIE' AND c.status = 'available'`,
    );
    const answers = await Promise.all(
      Array.from({ length: count + 4 }, (_, i) =>
        order(account.key, { pid: "SVCGKINDIE", trxid: newTrxid(`s${i}`), quantity: 1 }),
      ),
    );
    const created = answers.filter((a) => a.status === 200 && a.json.orderCreated);
    expect(created.length).toBeLessThanOrEqual(count);
    for (const a of answers.filter((x) => !(x.status === 200 && x.json.orderCreated))) {
      expect(a.json.code).toBe("INSUFFICIENT_STOCK");
    }
    const holders = await sql(
      `SELECT c.order_id, count(*)::int AS n FROM inventory_codes c JOIN orders o ON o.id = c.order_id
        WHERE o.catalog_id = 'SVCGKINDIE' AND o.account_id = $1 GROUP BY c.order_id`,
      [account.accountId],
    );
    expect(holders.every((h) => h.n === 1)).toBe(true);
    expect(holders.length).toBe(created.length);
  });
});

describe("switches", () => {
  it.each(["MAINTENANCE", "API_ORDER_DISABLED"] as const)(
    "%s answers 503 before anything is written; GETs keep working",
    async (name) => {
      const probe = await createAccount();
      await setServerSwitch(name, probe.key);
      try {
        const account = await createAccount({ balanceCents: 1000 });
        const refused = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "1" });
        expect(refused.status).toBe(503);
        expect(refused.json).toEqual({ success: false, error: name, code: name });
        expect((await api("/balance", { key: account.key })).status).toBe(200);
        expect(await sql(`SELECT 1 FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([]);
        expect(
          (await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId])).balance_cents,
        ).toBe(1000);
      } finally {
        await setServerSwitch("none", probe.key);
      }
    },
  );
});
