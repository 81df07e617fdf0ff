// Price tiers over real HTTP and PostgreSQL (acceptance 2): accounts on different tiers see different
// prices for one pack in GET /products and /catalog, and POST /orders charges them exactly that
// (invoice, balance, ledger); a tier change or a price change applies to new orders only, and a
// replay answers the original amount; a test key pays its holder's tier.
import { beforeAll, describe, expect, it } from "vitest";
import { getPrisma } from "@/lib/db/prisma";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { creditTestWallet } from "@/lib/wallet/test-wallet";
import { createPriceTier } from "@/lib/pricing/create-price-tier";
import { renamePriceTier } from "@/lib/pricing/rename-price-tier";
import { removePriceTier } from "@/lib/pricing/remove-price-tier";
import { setTierPackPrice } from "@/lib/pricing/set-tier-pack-price";
import { setAccountTier } from "@/lib/pricing/set-account-tier";
import type { TierRule } from "@/lib/pricing/price-tier-rules";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase({ checkBooks: true });

type Account = Awaited<ReturnType<typeof createAccount>>;
let gold: Account; // tier gold
let silver: Account; // tier silver
let plain: Account; // no tier: list prices
const tierIds: Record<string, number> = {};

const price = (cents: number): TierRule => ({ priceCents: cents, percentOffBp: null });
const percentOff = (basisPoints: number): TierRule => ({ priceCents: null, percentOffBp: basisPoints });

async function makeTier(name: string, rules: Record<string, TierRule>): Promise<void> {
  expect(await createPriceTier({ name, actor: "test" })).toMatchObject({ status: "saved" });
  tierIds[name] = (await sqlRow(`SELECT id FROM price_tiers WHERE name = $1`, [name])).id;
  for (const [catalogId, rule] of Object.entries(rules))
    expect(await setTierPackPrice({ tierId: tierIds[name]!, catalogId, rule, actor: "test" })).toMatchObject({
      status: "saved",
    });
}

async function putOnTier(account: Account, tier: string | null): Promise<void> {
  const result = await setAccountTier({ accountId: account.accountId, tierName: tier, actor: "test" });
  expect(result.status === "updated" || result.status === "unchanged", JSON.stringify(result)).toBe(true);
}

/** The price `key` is shown for each of `catalogIds` by `path` (USD, as the API answers it). */
async function pricesFor(key: string, catalogIds: string[], path = "/products"): Promise<Record<string, number>> {
  const res = await api(path, { key });
  expect(res.status, res.text).toBe(200);
  const byId = new Map<string, number>(res.json.products.map((p: { id: string; price: number }) => [p.id, p.price]));
  return Object.fromEntries(catalogIds.map((id) => [id, byId.get(id)!]));
}

async function balanceCents(accountId: number): Promise<number> {
  return (await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents;
}

/** The order's stored charge and its one ledger entry. */
async function charged(publicId: string) {
  return sqlRow(
    `SELECT o.unit_price_cents AS unit, o.amount_cents AS amount, l.amount_cents AS ledger
       FROM orders o JOIN ledger_entries l ON l.order_id = o.id AND l.kind = 'debit'
      WHERE o.public_id = $1`,
    [publicId],
  );
}

beforeAll(async () => {
  // List prices (lib/seed/demo-catalog.ts): SVCBR60 $0.99, SVCBR325 $4.99, SVCMB172 $3.09, SVCGKINDIE $4.99.
  await makeTier("gold", { SVCBR60: price(80), SVCMB172: percentOff(5000), SVCGKINDIE: percentOff(1000) });
  await makeTier("silver", { SVCBR60: percentOff(1500) });
  gold = await createAccount({ balanceCents: 5_000 });
  silver = await createAccount({ balanceCents: 5_000 });
  plain = await createAccount({ balanceCents: 5_000 });
  await putOnTier(gold, "gold");
  await putOnTier(silver, "silver");
});

describe("what each key is shown", () => {
  it("GET /products and GET /catalog show the calling key's price, whoever asked before", async () => {
    const ids = ["SVCBR60", "SVCBR325", "SVCMB172", "SVCGKINDIE"];
    // Interleaved, so an answer kept for one caller would show up under another.
    for (const path of ["/products", "/catalog", "/products"]) {
      expect(await pricesFor(gold.key, ids, path)).toEqual({
        SVCBR60: 0.8, // fixed
        SVCBR325: 4.99, // not in the tier: list price
        SVCMB172: 1.55, // 50 % off 309 = 154.5, rounded half up
        SVCGKINDIE: 4.49, // 10 % off 499 = 449.1
      });
      expect(await pricesFor(silver.key, ids, path)).toEqual({
        SVCBR60: 0.84, // 15 % off 99 = 84.15
        SVCBR325: 4.99,
        SVCMB172: 3.09,
        SVCGKINDIE: 4.99,
      });
      expect(await pricesFor(plain.key, ids, path)).toEqual({
        SVCBR60: 0.99,
        SVCBR325: 4.99,
        SVCMB172: 3.09,
        SVCGKINDIE: 4.99,
      });
    }
  });
});

describe("what each account is charged", () => {
  it("POST /orders charges the price shown: invoice, order, ledger and balance", async () => {
    const cases = [
      { account: gold, cents: 80 },
      { account: silver, cents: 84 },
      { account: plain, cents: 99 },
    ];
    for (const { account, cents } of cases) {
      const before = await balanceCents(account.accountId);
      const res = await order(account.key, { pid: "SVCBR60", trxid: newTrxid("tier"), userId: "5120001" });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ orderCreated: true, amountUsd: cents / 100, status: "processing" });
      expect(await charged(res.json.orderId)).toEqual({ unit: cents, amount: cents, ledger: -cents });
      expect(await balanceCents(account.accountId)).toBe(before - cents);
    }
  });

  it("charges the tier's unit price per code on a quantity order, and the rounded percent on a top-up", async () => {
    const before = await balanceCents(gold.accountId);
    const keys = await order(gold.key, { pid: "SVCGKINDIE", quantity: 2, trxid: newTrxid("tier-keys") });
    expect(keys.status, keys.text).toBe(200);
    expect(keys.json).toMatchObject({ amountUsd: 8.98, quantity: 2 });
    expect(await charged(keys.json.orderId)).toEqual({ unit: 449, amount: 898, ledger: -898 });
    const moba = await order(gold.key, {
      pid: "SVCMB172",
      trxid: newTrxid("tier-mb"),
      userId: "700100",
      zoneId: "2001",
    });
    expect(moba.status, moba.text).toBe(200);
    expect(await charged(moba.json.orderId)).toEqual({ unit: 155, amount: 155, ledger: -155 });
    expect(await balanceCents(gold.accountId)).toBe(before - 898 - 155);
  });

  it("never charges less than one cent", async () => {
    await makeTier("deep", { SVCBR60: percentOff(9999) });
    const account = await createAccount({ balanceCents: 100 });
    await putOnTier(account, "deep");
    expect(await pricesFor(account.key, ["SVCBR60"])).toEqual({ SVCBR60: 0.01 });
    const res = await order(account.key, { pid: "SVCBR60", trxid: newTrxid("deep"), userId: "5120001" });
    expect(res.json).toMatchObject({ orderCreated: true, amountUsd: 0.01 });
    expect(await balanceCents(account.accountId)).toBe(99);
  });
});

describe("changes apply to new orders only", () => {
  it("a tier change or a price change leaves placed orders and their replays at the original amount", async () => {
    const account = await createAccount({ balanceCents: 1_000 });
    await putOnTier(account, "gold");
    const first = { pid: "SVCBR60", trxid: newTrxid("before"), userId: "5120001" };
    const placed = await order(account.key, first);
    expect(placed.json).toMatchObject({ orderCreated: true, amountUsd: 0.8 });
    expect(await balanceCents(account.accountId)).toBe(920);

    await putOnTier(account, "silver");
    expect(await pricesFor(account.key, ["SVCBR60"])).toEqual({ SVCBR60: 0.84 });
    const replay = await order(account.key, first);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json).toEqual(placed.json);
    expect(await balanceCents(account.accountId)).toBe(920);

    const second = { pid: "SVCBR60", trxid: newTrxid("after"), userId: "5120001" };
    const next = await order(account.key, second);
    expect(next.json).toMatchObject({ orderCreated: true, amountUsd: 0.84 });
    expect(await balanceCents(account.accountId)).toBe(836);

    // The tier's rule and the list price change too: both orders' replays still answer what was charged.
    await setTierPackPrice({ tierId: tierIds.silver!, catalogId: "SVCBR60", rule: price(70), actor: "test" });
    await getPrisma().product.update({ where: { catalogId: "SVCBR60" }, data: { priceCents: 120 } });
    try {
      expect(await pricesFor(account.key, ["SVCBR60"])).toEqual({ SVCBR60: 0.7 });
      expect(await pricesFor(plain.key, ["SVCBR60"])).toEqual({ SVCBR60: 1.2 });
      expect((await order(account.key, first)).json).toEqual(placed.json);
      expect((await order(account.key, second)).json).toEqual(next.json);
      expect(
        await sql(`SELECT amount_cents FROM orders WHERE account_id = $1 ORDER BY id`, [account.accountId]),
      ).toEqual([{ amount_cents: 80 }, { amount_cents: 84 }]);
      expect(await balanceCents(account.accountId)).toBe(836);
    } finally {
      await getPrisma().product.update({ where: { catalogId: "SVCBR60" }, data: { priceCents: 99 } });
      await setTierPackPrice({ tierId: tierIds.silver!, catalogId: "SVCBR60", rule: percentOff(1500), actor: "test" });
    }
  });
});

describe("test mode", () => {
  it("a test key sees and pays its holder's tier, from the test wallet", async () => {
    const holder = await createAccount({ balanceCents: 1_000 });
    await putOnTier(holder, "gold");
    const issued = await issueApiKey(holder.accountId, "test", { livemode: false });
    if (issued.status !== "created") throw new Error(`no test key: ${issued.status}`);
    expect(await creditTestWallet(holder.accountId, 500, "test")).toMatchObject({ status: "credited" });
    expect(await pricesFor(issued.key, ["SVCBR60", "SVCMB172"])).toEqual({ SVCBR60: 0.8, SVCMB172: 1.55 });

    const res = await order(issued.key, { pid: "SVCBR60", trxid: newTrxid("test-key"), userId: "5120001" });
    expect(res.json).toMatchObject({ orderCreated: true, amountUsd: 0.8, livemode: false });
    const testAccount = (await sqlRow(`SELECT id FROM accounts WHERE live_account_id = $1`, [holder.accountId])).id;
    expect(await balanceCents(testAccount)).toBe(420);
    expect(await balanceCents(holder.accountId)).toBe(1_000);

    // The test wallet has no tier of its own: it follows the holder's.
    expect(await setAccountTier({ accountId: testAccount, tierName: "silver", actor: "test" })).toEqual({
      status: "test_account",
      holderId: holder.accountId,
    });
    await putOnTier(holder, "silver");
    expect(await pricesFor(issued.key, ["SVCBR60"])).toEqual({ SVCBR60: 0.84 });
  });
});

describe("managing tiers", () => {
  it("audits an account's move with what it replaced, and refuses unknown tiers", async () => {
    const account = await createAccount();
    expect(await setAccountTier({ accountId: account.accountId, tierName: "Gold", actor: "admin:x" })).toMatchObject({
      status: "updated",
      tier: "gold",
      previous: null,
    });
    expect(await setAccountTier({ accountId: account.accountId, tierName: "none", actor: "admin:x" })).toMatchObject({
      status: "updated",
      tier: null,
      previous: "gold",
    });
    expect(await setAccountTier({ accountId: account.accountId, tierName: "bronze", actor: "admin:x" })).toEqual({
      status: "no_such_tier",
      tier: "bronze",
    });
    expect(
      await sql(`SELECT action, details FROM audit_log WHERE target_type = 'account' AND target_id = $1 ORDER BY id`, [
        String(account.accountId),
      ]),
    ).toEqual([
      { action: "account.price_tier", details: { from: null, to: "gold", changed: true } },
      { action: "account.price_tier", details: { from: "gold", to: null, changed: true } },
    ]);
  });

  it("refuses taken and bad names, and the table refuses a row with both rules, neither or out of range", async () => {
    expect(await createPriceTier({ name: "gold", actor: "test" })).toEqual({
      status: "refused",
      message: "A tier named gold exists already.",
    });
    expect((await createPriceTier({ name: "none", actor: "test" })).status).toBe("refused");
    expect((await createPriceTier({ name: "two words", actor: "test" })).status).toBe("refused");
    expect(await renamePriceTier({ tierId: tierIds.silver!, name: "gold", actor: "test" })).toMatchObject({
      status: "refused",
    });
    // The table itself refuses a row with both rules or neither.
    const product = (await sqlRow(`SELECT id FROM products WHERE catalog_id = 'SVCBR325'`)).id;
    for (const values of ["100, 1000", "NULL, NULL", "0, NULL", "NULL, 10000"])
      await expect(
        sql(
          `INSERT INTO price_tier_prices (price_tier_id, product_id, price_cents, percent_off_bp) VALUES ($1, $2, ${values})`,
          [tierIds.gold, product],
        ),
      ).rejects.toThrow();
    expect(await pricesFor(gold.key, ["SVCBR325"])).toEqual({ SVCBR325: 4.99 });
  });

  it("removing a tier returns its accounts to list prices, audited with the accounts it moved", async () => {
    await makeTier("temp", { SVCBR60: price(50) });
    const account = await createAccount();
    await putOnTier(account, "temp");
    expect(await pricesFor(account.key, ["SVCBR60"])).toEqual({ SVCBR60: 0.5 });
    expect(await removePriceTier({ tierId: tierIds.temp!, actor: "test" })).toEqual({
      status: "saved",
      message: "Tier temp removed: 1 account pays list prices on new orders.",
    });
    expect(await pricesFor(account.key, ["SVCBR60"])).toEqual({ SVCBR60: 0.99 });
    expect(
      await sql(`SELECT count(*)::int AS n FROM price_tier_prices WHERE price_tier_id = $1`, [tierIds.temp]),
    ).toEqual([{ n: 0 }]);
    expect(
      await sqlRow(`SELECT details FROM audit_log WHERE action = 'price_tier.remove' AND target_id = $1`, [
        String(tierIds.temp),
      ]),
    ).toEqual({ details: { name: "temp", accountIds: [account.accountId] } });
  });

  it("a removal racing an account's move onto the tier: either order, the audit names exactly what moved", async () => {
    const account = await createAccount();
    for (let round = 0; round < 8; round++) {
      const name = `race${round}`;
      await makeTier(name, { SVCBR60: price(50) });
      const [moved, removed] = await Promise.all([
        setAccountTier({ accountId: account.accountId, tierName: name, actor: "test" }),
        removePriceTier({ tierId: tierIds[name]!, actor: "test" }),
      ]);
      expect(removed.status).toBe("saved");
      const audit = await sqlRow(
        `SELECT details FROM audit_log WHERE action = 'price_tier.remove' AND target_id = $1`,
        [String(tierIds[name])],
      );
      // The move either committed first (the removal took the account back) or found no tier.
      if (moved.status === "updated") expect(audit.details.accountIds).toEqual([account.accountId]);
      else expect([moved.status, audit.details.accountIds]).toEqual(["no_such_tier", []]);
      expect(
        (await sqlRow(`SELECT price_tier_id FROM accounts WHERE id = $1`, [account.accountId])).price_tier_id,
      ).toBeNull();
    }
  });

  it("catalog_entry, which placements read, prices with the same function as the catalog", async () => {
    const entry = (tier: number | null) =>
      sqlRow(`SELECT "priceCents" FROM catalog_entry(catalog_id => 'SVCMB172', price_tier_id => $1::int)`, [tier]);
    expect(await entry(null)).toEqual({ priceCents: 309 });
    expect(await entry(tierIds.gold!)).toEqual({ priceCents: 155 });
    expect(await entry(tierIds.silver!)).toEqual({ priceCents: 309 });
  });
});
