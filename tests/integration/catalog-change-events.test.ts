// Catalog change events over real HTTP (issue 40, acceptance 1-3): a list price change, a tier change,
// a pack or line switched off and stock running out each give product.updated to exactly the accounts
// that see the change, in GET /events and signed at a local receiver; GET /products?updatedSince
// answers exactly the packs changed at or after the instant; a switched-off pack stays readable by id
// and an old invoice names it. The looks are made here, one at a time with the worker's (the worker
// below looks only when it starts), so each test knows every change before it was told; the last
// test leaves the looking to a running worker, as the service runs.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { getPrisma } from "@/lib/db/prisma";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import type { RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { startLocalWebhooksWorker } from "../helpers/local-webhooks-worker";
import { sendCatalogChanges } from "@/lib/catalog/sql/send-catalog-changes";
import { setProductPrice } from "@/lib/catalog/set-product-price";
import { setProductActive } from "@/lib/catalog/set-product-active";
import { setLineOrderable } from "@/lib/catalog/set-line-orderable";
import { importInventoryCodes } from "@/lib/catalog/import-inventory-codes";
import { createPriceTier } from "@/lib/pricing/create-price-tier";
import { setTierPackPrice } from "@/lib/pricing/set-tier-pack-price";
import { setAccountTier } from "@/lib/pricing/set-account-tier";
import { api } from "../helpers/api";
import { sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { addEndpoint } from "../helpers/webhooks";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase({ checkBooks: true });

interface Watcher {
  name: string;
  accountId: number;
  key: string;
  /** Events read so far through GET /events. */
  after: number;
  secret?: string;
  path?: string;
}

let worker: RunningWorker;
let receiver: WebhookReceiver;
let plain: Watcher; // list prices; an endpoint for product.updated only
let gold: Watcher; // tier gold (a fixed price for SVCBR60); an endpoint for every type
let pct: Watcher; // tier pct (10 % off SVCBR60); an endpoint for order.completed only
let plainTest: Watcher; // plain's test key: the test account, at plain's prices
let off: Watcher; // API turned off: watches nothing
const tierIds: Record<string, number> = {};
/** Webhook ids already taken from the receiver, per path. */
const seenDeliveries = new Map<string, number>();

const productId = async (catalogId: string): Promise<number> =>
  (await sqlRow(`SELECT id FROM products WHERE catalog_id = $1`, [catalogId])).id;

/** A look at the catalog, after any the worker is making: every change committed before is told. */
async function look(): Promise<void> {
  expect(await sendCatalogChanges({ wait: true })).toBeDefined();
}

async function watcher(
  name: string,
  options: { tier?: string; endpointTypes?: string[]; apiEnabled?: boolean } = {},
): Promise<Watcher> {
  const account = await createAccount({ balanceCents: 50_000, apiEnabled: options.apiEnabled });
  if (options.tier) await setAccountTier({ accountId: account.accountId, tierName: options.tier, actor: "test" });
  const made: Watcher = { name, accountId: account.accountId, key: account.key, after: 0 };
  if (options.endpointTypes) {
    made.path = `/${name}`;
    const endpoint = await addEndpoint(account.accountId, `${receiver.url}${made.path}`, options.endpointTypes);
    made.secret = endpoint.secret;
  }
  return made;
}

/** product.updated events of `who` since the last call, through GET /events (every page). */
async function newProductEvents(who: Watcher): Promise<any[]> {
  const events: any[] = [];
  for (;;) {
    const res = await api(`/events?after=${who.after}&limit=500`, { key: who.key });
    expect(res.status, res.text).toBe(200);
    events.push(...res.json.events);
    who.after = res.json.nextAfter;
    if (!res.json.hasMore) break;
  }
  return events.filter((event) => event.type === "product.updated");
}

/** The pack as GET /products/{id} answers `who`, as an event's data carries it (without stock). */
async function productAsSeenBy(who: Watcher, catalogId: string) {
  const res = await api(`/products/${catalogId}`, { key: who.key });
  expect(res.status, res.text).toBe(200);
  const { success: _success, stock: _stock, ...product } = res.json;
  return product;
}

/** The deliveries to `who`'s endpoint not taken yet, once `count` have arrived, verified and parsed. */
async function newDeliveries(who: Watcher, count: number): Promise<{ id: string; payload: any }[]> {
  const taken = seenDeliveries.get(who.path!) ?? 0;
  const mine = () => receiver.received.filter((r) => r.path === `/hooks${who.path}`);
  await expect.poll(() => mine().length - taken, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(count);
  const fresh = mine().slice(taken);
  seenDeliveries.set(who.path!, taken + fresh.length);
  const webhook = new Webhook(who.secret!);
  return fresh.map((delivery) => ({
    id: delivery.headers["webhook-id"]!,
    payload: webhook.verify(delivery.body, delivery.headers),
  }));
}

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  worker = await startLocalWebhooksWorker({
    concurrency: 2,
    webhookConcurrency: 3,
    // It looks once at its start; the tests look themselves until the last one.
    sweepIntervalMs: 3_600_000,
  });
  for (const [name, rule] of [
    ["gold", { priceCents: 80, percentOffBp: null }],
    ["pct", { priceCents: null, percentOffBp: 1000 }],
  ] as const) {
    expect(await createPriceTier({ name, actor: "test" })).toMatchObject({ status: "saved" });
    tierIds[name] = (await sqlRow(`SELECT id FROM price_tiers WHERE name = $1`, [name])).id;
    await setTierPackPrice({ tierId: tierIds[name]!, catalogId: "SVCBR60", rule, actor: "test" });
  }
  plain = await watcher("plain", { endpointTypes: ["product.updated"] });
  gold = await watcher("gold", { tier: "gold", endpointTypes: [] });
  pct = await watcher("pct", { tier: "pct", endpointTypes: ["order.completed"] });
  off = await watcher("off", { apiEnabled: false });
  const testKey = await issueApiKey(plain.accountId, "test", { livemode: false });
  if (testKey.status !== "created") throw new Error(testKey.status);
  const testAccount = await sqlRow(`SELECT id FROM accounts WHERE live_account_id = $1`, [plain.accountId]);
  plainTest = { name: "plain-test", accountId: testAccount.id, key: testKey.key, after: 0 };
  // The accounts start watching: what they see now is their starting point, told nothing.
  await look();
  for (const who of [plain, gold, pct, plainTest]) expect(await newProductEvents(who)).toEqual([]);
});

afterAll(async () => {
  await receiver?.close();
  await worker?.stop();
});

describe("product.updated", () => {
  it("a list price change is told once to each account whose price it moves, in /events and signed at its endpoint", async () => {
    // Two changes between looks are one event, with the price after both.
    await setProductPrice({ productId: await productId("SVCBR60"), priceCents: 105, actor: "test" });
    await setProductPrice({ productId: await productId("SVCBR60"), priceCents: 109, actor: "test" });
    await look();

    for (const who of [plain, pct, plainTest]) {
      const events = await newProductEvents(who);
      expect(events, who.name).toHaveLength(1);
      expect(events[0].data).toEqual(await productAsSeenBy(who, "SVCBR60"));
      expect(events[0].livemode).toBe(who !== plainTest);
    }
    expect((await newProductEvents(plain))[0]).toBeUndefined();
    expect((await productAsSeenBy(plain, "SVCBR60")).price).toBe(1.09);
    expect((await productAsSeenBy(pct, "SVCBR60")).price).toBe(0.98); // 10 % off, half up
    // gold pays its tier's fixed price, which did not move.
    expect(await newProductEvents(gold)).toEqual([]);

    // plain's endpoint takes product.updated; pct's only order.completed (the event is in its /events).
    const [delivery] = await newDeliveries(plain, 1);
    expect(delivery!.payload).toEqual({
      type: "product.updated",
      timestamp: expect.any(String),
      livemode: true,
      data: await productAsSeenBy(plain, "SVCBR60"),
    });

    // A change undone before the next look changes nothing anyone sees: no event.
    await setProductPrice({ productId: await productId("SVCBR60"), priceCents: 119, actor: "test" });
    await setProductPrice({ productId: await productId("SVCBR60"), priceCents: 109, actor: "test" });
    await look();
    for (const who of [plain, gold, pct, plainTest]) expect(await newProductEvents(who), who.name).toEqual([]);

    // An account that cannot use the API was told nothing (read once it can).
    await getPrisma().account.update({ where: { id: off.accountId }, data: { apiEnabled: true } });
    expect(await newProductEvents(off)).toEqual([]);
  });

  it("a tier's price change is told to that tier's accounts only; moving an account to a tier tells it each price that moved", async () => {
    await setTierPackPrice({
      tierId: tierIds.gold!,
      catalogId: "SVCBR60",
      rule: { priceCents: 75, percentOffBp: null },
      actor: "test",
    });
    await look();
    const [told] = await newProductEvents(gold);
    expect(told.data).toMatchObject({ id: "SVCBR60", price: 0.75, orderable: true });
    expect(await newProductEvents(gold)).toEqual([]);
    for (const who of [plain, pct, plainTest, off]) expect(await newProductEvents(who), who.name).toEqual([]);
    // gold's endpoint takes every type.
    const [delivery] = await newDeliveries(gold, 1);
    expect(delivery!.id).toBe(told.id);
    expect(delivery!.payload.data).toEqual(told.data);

    // plain (and its test account, which pays its tier) onto gold: only SVCBR60 has a gold price.
    await setAccountTier({ accountId: plain.accountId, tierName: "gold", actor: "test" });
    await look();
    for (const who of [plain, plainTest]) {
      const events = await newProductEvents(who);
      expect(
        events.map((event) => [event.data.id, event.data.price]),
        who.name,
      ).toEqual([["SVCBR60", 0.75]]);
    }
    await newDeliveries(plain, 1);
    await setAccountTier({ accountId: plain.accountId, tierName: null, actor: "test" });
    await look();
    for (const who of [plain, plainTest]) {
      const events = await newProductEvents(who);
      expect(
        events.map((event) => [event.data.id, event.data.price]),
        who.name,
      ).toEqual([["SVCBR60", 1.09]]);
    }
    await newDeliveries(plain, 1);
  });

  it("a pack switched off is told as not orderable, stays readable by id, and an old invoice still names it", async () => {
    const placed = await order(plain.key, { pid: "SVCBR325", trxid: newTrxid("old"), userId: "5150001" });
    expect(placed.status, placed.text).toBe(200);
    const done = await api(`/orders/${placed.json.orderId}?wait=20`, { key: plain.key });
    expect(done.json).toMatchObject({ status: "completed", pid: "SVCBR325", packName: "325 UC" });

    await setProductActive({ productId: await productId("SVCBR325"), active: false, actor: "test" });
    await look();
    for (const who of [plain, gold, pct, plainTest, off]) {
      const events = await newProductEvents(who);
      expect(
        events.map((event) => event.data),
        who.name,
      ).toEqual([expect.objectContaining({ id: "SVCBR325", orderable: false, unorderableReason: "PRODUCT_DISABLED" })]);
    }
    const [delivery] = await newDeliveries(plain, 1);
    expect(delivery!.payload.data).toMatchObject({ id: "SVCBR325", orderable: false });

    // Gone from the listing, readable by id at the last price, and the old order's invoice names it.
    const listed = await api("/products", { key: plain.key });
    expect(listed.json.products.map((product: { id: string }) => product.id)).not.toContain("SVCBR325");
    const byId = await api("/products/SVCBR325", { key: plain.key });
    expect(byId.status).toBe(200);
    expect(byId.json).toMatchObject({
      success: true,
      id: "SVCBR325",
      slug: "br",
      kind: "topup",
      packName: "325 UC",
      price: expect.any(Number),
      orderable: false,
      unorderableReason: "PRODUCT_DISABLED",
      updatedAt: expect.any(String),
    });
    const invoice = await api(`/orders/${placed.json.orderId}`, { key: plain.key });
    expect(invoice.json).toMatchObject({ pid: "SVCBR325", packName: "325 UC", status: "completed" });
    expect((await api(`/products/${invoice.json.pid}`, { key: plain.key })).json.id).toBe("SVCBR325");
    // The order answers as the switch says.
    const refused = await order(plain.key, { pid: "SVCBR325", trxid: newTrxid("off"), userId: "5150001" });
    expect(refused.json.code).toBe(byId.json.unorderableReason);

    const unknown = await api("/products/SVCBRNOSUCH", { key: plain.key });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ success: false, code: "PRODUCT_NOT_FOUND", error: "PRODUCT NOT FOUND" });

    // Back on: told again. A closed line: each of its packs told once.
    await setProductActive({ productId: await productId("SVCBR325"), active: true, actor: "test" });
    const moba = await sqlRow(`SELECT id FROM game_lines WHERE slug = 'moba'`);
    const mobaPacks = (await api("/products", { key: gold.key })).json.products
      .filter((product: { slug: string }) => product.slug === "moba")
      .map((product: { id: string }) => product.id);
    expect(mobaPacks.length).toBeGreaterThan(0);
    await setLineOrderable({ lineId: moba.id, orderable: false, actor: "test" });
    await look();
    const goldEvents = await newProductEvents(gold);
    expect(
      goldEvents.map((event) => [event.data.id, event.data.orderable, event.data.unorderableReason ?? null]).sort(),
    ).toEqual([["SVCBR325", true, null], ...mobaPacks.map((id: string) => [id, false, "GAME_DISABLED"])].sort());
    await setLineOrderable({ lineId: moba.id, orderable: true, actor: "test" });
    await look();
    expect((await newProductEvents(gold)).map((event) => [event.data.id, event.data.orderable])).toEqual(
      mobaPacks.map((id: string) => [id, true]),
    );
    for (const who of [plain, pct, plainTest, off]) await newProductEvents(who);
    await newDeliveries(plain, 1 + 2 * mobaPacks.length);
  });

  it("answers GET /products?updatedSince= with exactly the packs changed at or after the instant", async () => {
    await setProductPrice({ productId: await productId("SVCBR60"), priceCents: 111, actor: "test" });
    const first = (await api("/products/SVCBR60", { key: plain.key })).json.updatedAt as string;
    await setProductPrice({ productId: await productId("SVCGC10"), priceCents: 1001, actor: "test" });
    await setProductActive({ productId: await productId("SVCGC25"), active: false, actor: "test" });
    const later = (await api("/products/SVCGC10", { key: plain.key })).json.updatedAt as string;
    const last = (await api("/products/SVCGC25", { key: plain.key })).json.updatedAt as string;
    expect(Date.parse(later)).toBeGreaterThan(Date.parse(first));

    const since = async (instant: string, key = plain.key) => {
      const res = await api(`/products?updatedSince=${encodeURIComponent(instant)}`, { key });
      expect(res.status, res.text).toBe(200);
      return res.json.products;
    };
    const ids = (products: { id: string }[]) => products.map((product) => product.id).sort();
    // The boundary is included; a millisecond later it is not.
    expect(ids(await since(first))).toEqual(["SVCBR60", "SVCGC10", "SVCGC25"]);
    const justAfter = new Date(Date.parse(first) + 1).toISOString();
    expect(ids(await since(justAfter))).toEqual(["SVCGC10", "SVCGC25"]);
    expect(await since(new Date(Date.parse(last) + 1).toISOString())).toEqual([]);
    // A switched-off pack is a change: answered, not orderable, and why.
    const [gc25] = (await since(last)).filter((product: { id: string }) => product.id === "SVCGC25");
    expect(gc25).toMatchObject({ orderable: false, unorderableReason: "PRODUCT_DISABLED", updatedAt: last });
    // An offset is read as the instant it names; a test key reads the same packs.
    const offset = first.replace("Z", "+00:00");
    expect(ids(await since(offset, plainTest.key))).toEqual(["SVCBR60", "SVCGC10", "SVCGC25"]);
    // Every pack's updatedAt is the one answered by id, and a tier's price moves it for everyone.
    await setTierPackPrice({
      tierId: tierIds.pct!,
      catalogId: "SVCGKINDIE",
      rule: { priceCents: 450, percentOffBp: null },
      actor: "test",
    });
    const indie = (await api("/products/SVCGKINDIE", { key: plain.key })).json;
    expect(Date.parse(indie.updatedAt)).toBeGreaterThan(Date.parse(last));
    expect(ids(await since(indie.updatedAt))).toEqual(["SVCGKINDIE"]);

    const bad = await api("/products?updatedSince=yesterday", { key: plain.key });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: "INVALID_REQUEST" });
    expect(JSON.stringify(bad.json.details)).toContain("updatedSince");

    await setProductActive({ productId: await productId("SVCGC25"), active: true, actor: "test" });
    await look();
    for (const who of [plain, gold, pct, plainTest, off]) await newProductEvents(who);
    seenDeliveries.set(plain.path!, receiver.received.filter((r) => r.path === `/hooks${plain.path}`).length);
  });

  it("stock running out and coming back is told by a running worker, as not orderable and orderable again", async () => {
    const running = await startLocalWebhooksWorker({ concurrency: 2, webhookConcurrency: 0, sweepIntervalMs: 100 });
    try {
      const { n: left } = await sqlRow(
        `SELECT count(*)::int AS n FROM inventory_codes c JOIN products p ON p.id = c.product_id
          WHERE p.catalog_id = 'SVCGKAAA' AND c.status = 'available'`,
      );
      const before = (await api("/products/SVCGKAAA", { key: gold.key })).json;
      expect(before).toMatchObject({ orderable: true, stock: left });
      const bought = await order(pct.key, { pid: "SVCGKAAA", trxid: newTrxid("all"), quantity: left });
      expect(bought.json.orderCreated, bought.text).toBe(true);

      const toldOut = async (who: Watcher) => {
        let events: any[] = [];
        await expect
          .poll(async () => (events = [...events, ...(await newProductEvents(who))]).length, { timeout: 30_000 })
          .toBeGreaterThanOrEqual(1);
        return events;
      };
      for (const who of [plain, gold, pct, plainTest, off]) {
        const events = await toldOut(who);
        expect(
          events.map((event) => event.data),
          who.name,
        ).toEqual([
          expect.objectContaining({ id: "SVCGKAAA", orderable: false, unorderableReason: "INSUFFICIENT_STOCK" }),
        ]);
      }
      const after = (await api("/products/SVCGKAAA", { key: gold.key })).json;
      expect(after).toMatchObject({ orderable: false, unorderableReason: "INSUFFICIENT_STOCK", stock: 0 });
      expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
      const [delivery] = await newDeliveries(plain, 1);
      expect(delivery!.payload.data).toMatchObject({ id: "SVCGKAAA", orderable: false });

      const codes = Array.from({ length: 2 }, () => `BACK-${crypto.randomBytes(6).toString("hex").toUpperCase()}`);
      expect(
        await importInventoryCodes({
          productId: await productId("SVCGKAAA"),
          sources: [{ label: "restock", text: codes.join("\n") }],
          actor: "test",
        }),
      ).toMatchObject({ status: "imported" });
      for (const who of [plain, gold, pct, plainTest, off]) {
        const events = await toldOut(who);
        expect(
          events.map((event) => [event.data.id, event.data.orderable]),
          who.name,
        ).toEqual([["SVCGKAAA", true]]);
      }
    } finally {
      await running.stop();
    }
  });
});
