// The placement's two guards (docs/api.md: Orders): a price guard per order (maxPrice) and a daily
// spending limit per key (the bot's /keylimit). Both refuse before the wallet: nothing is stored or
// charged and the trxid stays free. The limit holds under parallel orders of one key.
import { describe, expect, it } from "vitest";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { listApiKeys } from "@/lib/accounts/list-api-keys";
import { setKeySpendingLimit } from "@/lib/accounts/set-key-spending-limit";
import type { OrderBody } from "@/lib/api-schemas/order-schemas";
import { authenticateApiKey } from "@/lib/auth/authenticate-api-key";
import { ApiError } from "@/lib/http/errors";
import { placeOrder } from "@/lib/orders/sql/place-order";
import { readOrderRequest } from "@/lib/orders/validate-order-request";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { creditTestWallet } from "@/lib/wallet/test-wallet";
import { useCleanDatabase } from "../helpers/clean-database";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";

useCleanDatabase({ checkBooks: true });

const BR60 = { pid: "SVCBR60", userId: "5123456" }; // 0.99 USD at list price

async function balanceCents(accountId: number): Promise<number> {
  return Number((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents);
}

async function ordersOf(accountId: number, trxid: string) {
  return sql(`SELECT status FROM orders WHERE account_id = $1 AND trxid = $2`, [accountId, trxid]);
}

/** placeOrder straight, as the route calls it: the outcome, or the refusal's code. */
async function place(key: string, body: OrderBody): Promise<string> {
  const request = readOrderRequest(body);
  if (request instanceof ApiError) throw request;
  try {
    const { invoice } = await placeOrder(await authenticateApiKey(key), request);
    return invoice.orderCreated ? "placed" : invoice.error!;
  } catch (error) {
    if (error instanceof ApiError) return error.key;
    throw error;
  }
}

describe("maxPrice", () => {
  it("below the price: 409 PRICE_ABOVE_MAX with the current price, nothing stored, and the trxid free", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const trxid = newTrxid("max");
    const refused = await order(account.key, { ...BR60, trxid, maxPrice: 0.98 });
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({
      success: false,
      error: "PRICE ABOVE MAX",
      code: "PRICE_ABOVE_MAX",
      priceUsd: 0.99,
      amountUsd: 0.99,
    });
    expect(await ordersOf(account.accountId, trxid)).toEqual([]);
    expect(await balanceCents(account.accountId)).toBe(1000);

    const equal = await order(account.key, { ...BR60, trxid, maxPrice: 0.99 });
    expect(equal.status).toBe(200);
    expect(equal.json).toMatchObject({ orderCreated: true, status: "processing", trxid, amountUsd: 0.99 });
    const above = await order(account.key, { ...BR60, trxid: newTrxid("max"), maxPrice: 5 });
    expect(above.json).toMatchObject({ orderCreated: true, amountUsd: 0.99 });
    expect(await balanceCents(account.accountId)).toBe(1000 - 2 * 99);
  });

  it("is compared with the order's total: quantity times the unit price", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const { json: single } = await order(account.key, { pid: "SVCGKINDIE", trxid: newTrxid("q"), quantity: 1 });
    const unit = single.amountUsd as number;
    const refused = await order(account.key, { pid: "SVCGKINDIE", trxid: newTrxid("q"), quantity: 2, maxPrice: unit });
    expect(refused.json).toMatchObject({ code: "PRICE_ABOVE_MAX", priceUsd: unit, amountUsd: unit * 2 });
  });

  it("a repeat of a placed order answers it, whatever its maxPrice", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const trxid = newTrxid("max");
    const placed = await order(account.key, { ...BR60, trxid });
    const repeat = await order(account.key, { ...BR60, trxid, maxPrice: 0.01 });
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    expect(repeat.json).toEqual(placed.json);
  });

  it("refuses what is not a positive amount with at most two decimals", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    for (const maxPrice of [0, -1, 0.999, "1.00"]) {
      const res = await order(account.key, { ...BR60, trxid: newTrxid("bad"), maxPrice });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("INVALID_BODY");
    }
    expect(await balanceCents(account.accountId)).toBe(1000);
  });
});

describe("a key's daily spending limit", () => {
  it("parallel orders of one key never pass it, and each refusal charges nothing", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    await setKeySpendingLimit(account.accountId, account.keyPrefix, 500, "test");
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, () => place(account.key, { ...BR60, trxid: newTrxid("lim") })),
    );
    // 5 x 0.99 = 4.95 fits in 5.00; a sixth would make 5.94.
    expect(outcomes.filter((o) => o === "placed")).toHaveLength(5);
    expect(outcomes.filter((o) => o === "KEY_SPENDING_LIMIT")).toHaveLength(11);
    expect(await balanceCents(account.accountId)).toBe(10_000 - 5 * 99);
    expect(await sql(`SELECT count(*)::int AS n FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([
      { n: 5 },
    ]);
    const [key] = await listApiKeys(account.accountId);
    expect(key).toMatchObject({ dailyLimitCents: 500, spentTodayCents: 495 });
  });

  it("answers 403 KEY_SPENDING_LIMIT with the limit, today's spending and the reset; the trxid stays free", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    await setKeySpendingLimit(account.accountId, account.keyPrefix, 150, "test");
    expect((await order(account.key, { ...BR60, trxid: newTrxid("lim") })).json.orderCreated).toBe(true);
    const trxid = newTrxid("lim");
    const refused = await order(account.key, { ...BR60, trxid });
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({
      success: false,
      error: "KEY SPENDING LIMIT",
      code: "KEY_SPENDING_LIMIT",
      limitUsd: 1.5,
      spentTodayUsd: 0.99,
      resetsAt: midnight.toISOString(),
    });
    expect(await ordersOf(account.accountId, trxid)).toEqual([]);

    await setKeySpendingLimit(account.accountId, account.keyPrefix, null, "test");
    expect((await order(account.key, { ...BR60, trxid })).json).toMatchObject({ orderCreated: true, trxid });
  });

  it("counts only what was charged: an order the wallet refused leaves the day's spending as it was", async () => {
    const account = await createAccount({ balanceCents: 100 });
    await setKeySpendingLimit(account.accountId, account.keyPrefix, 200, "test");
    expect(await place(account.key, { ...BR60, trxid: newTrxid("bal") })).toBe("placed");
    expect(await place(account.key, { ...BR60, trxid: newTrxid("bal") })).toBe("INSUFFICIENT BALANCE");
    expect((await listApiKeys(account.accountId))[0]).toMatchObject({ spentTodayCents: 99 });
    await creditWallet({ accountId: account.accountId, amountCents: 1000, actor: "test", reason: "top up" });
    expect(await place(account.key, { ...BR60, trxid: newTrxid("bal") })).toBe("placed");
    expect(await place(account.key, { ...BR60, trxid: newTrxid("bal") })).toBe("KEY_SPENDING_LIMIT");
  });

  it("counts from zero on a new UTC day", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    await setKeySpendingLimit(account.accountId, account.keyPrefix, 100, "test");
    expect(await place(account.key, { ...BR60, trxid: newTrxid("day") })).toBe("placed");
    expect(await place(account.key, { ...BR60, trxid: newTrxid("day") })).toBe("KEY_SPENDING_LIMIT");
    // The key's last day of orders becomes yesterday, as it would at midnight.
    await sql(`UPDATE api_keys SET spent_day = spent_day - 1 WHERE id = $1`, [account.keyId]);
    expect((await listApiKeys(account.accountId))[0]).toMatchObject({ spentTodayCents: 0 });
    expect(await place(account.key, { ...BR60, trxid: newTrxid("day") })).toBe("placed");
  });

  it("is each key's own: another key and a test key of the account are not held by it", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    await setKeySpendingLimit(account.accountId, account.keyPrefix, 100, "test");
    const other = await issueApiKey(account.accountId, "test");
    const testKey = await issueApiKey(account.accountId, "test", { livemode: false });
    if (other.status !== "created" || testKey.status !== "created") throw new Error("keys not issued");
    await creditTestWallet(account.accountId, 1000, "test");
    expect(await place(account.key, { ...BR60, trxid: newTrxid("own") })).toBe("placed");
    expect(await place(account.key, { ...BR60, trxid: newTrxid("own") })).toBe("KEY_SPENDING_LIMIT");
    expect(await place(other.key, { ...BR60, trxid: newTrxid("own") })).toBe("placed");
    expect(await place(testKey.key, { ...BR60, trxid: newTrxid("own") })).toBe("placed");
    expect(await place(testKey.key, { ...BR60, trxid: newTrxid("own") })).toBe("placed");

    await setKeySpendingLimit(account.accountId, testKey.prefix, 100, "test");
    expect(await place(testKey.key, { ...BR60, trxid: newTrxid("own") })).toBe("KEY_SPENDING_LIMIT");
  });

  it("is set only on the account's own keys", async () => {
    const owner = await createAccount();
    const stranger = await createAccount();
    expect(await setKeySpendingLimit(stranger.accountId, owner.keyPrefix, 100, "test")).toEqual({
      status: "not_found",
    });
    expect((await listApiKeys(owner.accountId))[0]).toMatchObject({ dailyLimitCents: null });
  });
});
