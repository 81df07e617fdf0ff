// Stock alerts: admins are told through the bot (the local Bot API) once each time a pack's free
// codes fall below the threshold set for it, and again only after the stock has been back at or
// above it. Codes are taken by real orders over HTTP and given back by a real upload; the last test
// leaves the looking to a running worker process, as the service runs.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Telegram } from "telegraf";
import { alertLowStock } from "@/lib/catalog/alert-low-stock";
import { importInventoryCodes } from "@/lib/catalog/import-inventory-codes";
import { FakeTelegram } from "../helpers/fake-telegram";
import { useCleanDatabase } from "../helpers/clean-database";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { startWorkerProcess } from "../helpers/fault-load";
import { createLinkedAdmin } from "../helpers/telegram-admins";
import { suiteDatabaseUrl } from "../helpers/suite";

useCleanDatabase();

const PACK = "SVCGKINDIE";
let fake: FakeTelegram;
let telegram: Telegram;

beforeAll(async () => {
  fake = await FakeTelegram.start();
  telegram = new Telegram(fake.token, { apiRoot: fake.apiRoot });
});
afterAll(() => fake.close());

async function available(): Promise<number> {
  const row = await sqlRow(
    `SELECT count(*)::int AS n FROM inventory_codes c JOIN products p ON p.id = c.product_id
      WHERE p.catalog_id = $1 AND c.status = 'available'`,
    [PACK],
  );
  return row.n;
}

async function buyOne(key: string) {
  const placed = await order(key, { pid: PACK, trxid: newTrxid("stock"), quantity: 1 });
  expect(placed.status, JSON.stringify(placed.json)).toBe(200);
  expect(placed.json.orderCreated).toBe(true);
}

async function uploadCodes(count: number) {
  const product = await sqlRow(`SELECT id FROM products WHERE catalog_id = $1`, [PACK]);
  const codes = Array.from({ length: count }, () => `RESTOCK-${crypto.randomBytes(6).toString("hex").toUpperCase()}`);
  const result = await importInventoryCodes({
    productId: product.id,
    sources: [{ label: "restock", text: codes.join("\n") }],
    actor: "test",
  });
  expect(result.status).toBe("imported");
}

/** An admin to tell, a funded buyer, and the pack's alert armed at its stock (at least 3 codes). */
async function armAlertAtStock() {
  const admin = await createAccount({ key: false });
  await createLinkedAdmin(admin.telegramId, "viewer");
  const buyer = await createAccount({ balanceCents: 100_000 });
  if ((await available()) < 3) await uploadCodes(3);
  const threshold = await available();
  await sql(`UPDATE products SET stock_alert_below = $2, stock_alert_sent_at = NULL WHERE catalog_id = $1`, [
    PACK,
    threshold,
  ]);
  return { admin, buyer, threshold };
}

describe("low stock alerts", () => {
  it("tell every admin once per crossing below the pack's threshold, and again after a restock", async () => {
    const { admin, buyer, threshold } = await armAlertAtStock();

    // At the threshold: nothing to tell.
    expect(await alertLowStock(telegram)).toEqual([]);

    await buyOne(buyer.key);
    const crossed = await alertLowStock(telegram);
    expect(crossed).toEqual([expect.objectContaining({ catalogId: PACK, available: threshold - 1, threshold })]);
    // Still below, and lower still: told once, not on every look.
    await buyOne(buyer.key);
    expect(await alertLowStock(telegram)).toEqual([]);
    expect(await Promise.all([alertLowStock(telegram), alertLowStock(telegram)])).toEqual([[], []]);

    let texts = fake.textsTo(admin.telegramId);
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain(`Low stock: ${PACK}`);
    expect(texts[0]).toContain(`${threshold - 1} codes left, below its alert at ${threshold}`);

    // Restocked to the threshold: re-armed, nothing said; the next fall below is told again.
    await uploadCodes(2);
    expect(await available()).toBe(threshold);
    expect(await alertLowStock(telegram)).toEqual([]);
    await buyOne(buyer.key);
    expect(await alertLowStock(telegram)).toHaveLength(1);
    texts = fake.textsTo(admin.telegramId);
    expect(texts).toHaveLength(2);
  });

  it("two workers looking at the same moment tell a crossing once", async () => {
    const admin = await createAccount({ key: false });
    await createLinkedAdmin(admin.telegramId, "viewer");
    const before = fake.textsTo(admin.telegramId).length;
    await sql(`UPDATE products SET stock_alert_below = $2, stock_alert_sent_at = NULL WHERE catalog_id = $1`, [
      PACK,
      (await available()) + 1,
    ]);
    const looks = await Promise.all(Array.from({ length: 4 }, () => alertLowStock(telegram)));
    expect(looks.flat()).toHaveLength(1);
    expect(fake.textsTo(admin.telegramId)).toHaveLength(before + 1);
  });

  it("a running worker process tells them on its own, once per crossing", async () => {
    const { admin, buyer, threshold } = await armAlertAtStock();
    const worker = startWorkerProcess({
      DATABASE_URL: suiteDatabaseUrl(),
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_ROOT: fake.apiRoot,
      WORKER_SWEEP_MS: "200",
    });
    try {
      await worker.ready;
      const told = () => fake.textsTo(admin.telegramId).filter((text) => text.includes(`Low stock: ${PACK}`));

      await buyOne(buyer.key);
      await expect.poll(told, { timeout: 20_000, interval: 100 }).toHaveLength(1);
      expect(told()[0]).toContain(`${threshold - 1} codes left, below its alert at ${threshold}`);
      // Lower still: the same crossing, not told again. The worker re-arms the pack once the
      // restock is back at the threshold (seen in the row), and tells the next fall below.
      await buyOne(buyer.key);
      await uploadCodes(2);
      await expect
        .poll(
          async () =>
            (await sqlRow(`SELECT stock_alert_sent_at FROM products WHERE catalog_id = $1`, [PACK]))
              .stock_alert_sent_at,
          {
            timeout: 20_000,
            interval: 100,
          },
        )
        .toBeNull();
      expect(told()).toHaveLength(1);
      await buyOne(buyer.key);
      await expect.poll(told, { timeout: 20_000, interval: 100 }).toHaveLength(2);
      expect(told()[1]).toContain(`${threshold - 1} codes left`);
    } finally {
      worker.child.kill("SIGTERM");
      if (worker.child.exitCode === null) await new Promise((resolve) => worker.child.once("exit", resolve));
    }
  }, 60_000);
});
