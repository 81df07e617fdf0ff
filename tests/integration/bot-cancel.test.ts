// /cancel <order> in the bot: the holder's live or test order, by public id or trxid, cancelled and
// refunded once as POST /orders/{orderId}/cancel does; a second /cancel, an order of someone else
// and one already with a supplier change nothing. The order.cancelled event says it came from the bot.
import { beforeAll, describe, expect, it } from "vitest";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { api } from "../helpers/api";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import type { FakeUser } from "../helpers/fake-telegram";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";

const GINA: FakeUser = { id: 4_400_000_101, first_name: "Gina", username: "gina_cancels" };
const HUGO: FakeUser = { id: 4_400_000_102, first_name: "Hugo", username: "hugo_cancels" };

const bot = useBotHarness();
const { replyText, say } = bot;
beforeAll(() => seedDemoCatalog());

async function newKey(user: FakeUser, mode = ""): Promise<string> {
  const calls = await bot.fake.send(user, `/newkey ${mode}`.trim());
  return /svc_(test_)?[A-Za-z0-9]{40}/.exec(replyText(calls, user))![0];
}

async function refunds(publicId: string): Promise<number> {
  const { n } = await sqlRow(
    `SELECT count(*)::int AS n FROM ledger_entries l JOIN orders o ON o.id = l.order_id
      WHERE o.public_id = $1 AND l.kind = 'refund'`,
    [publicId],
  );
  return n;
}

describe("/cancel", () => {
  it("cancels and refunds a live order once, by public id or trxid; the event says the bot", async () => {
    await say(GINA, "/start");
    await say(GINA, "/api on");
    const key = await newKey(GINA);
    const { id: accountId } = await sqlRow(`SELECT id FROM accounts WHERE telegram_id = $1`, [GINA.id]);
    await creditWallet({ accountId, amountCents: 5_000, actor: "test", reason: "test funding" });

    const placed = await order(key, { pid: "SVCGC10", trxid: newTrxid("bot-cancel"), quantity: 1 });
    expect(placed.status, placed.text).toBe(200);
    expect(await say(GINA, `/cancel ${placed.json.trxid}`)).toBe(
      `${placed.json.orderId} cancelled; $10.00 refunded to your wallet.`,
    );
    expect(await say(GINA, `/cancel ${placed.json.orderId}`)).toBe(
      `${placed.json.orderId} is already cancelled: nothing was changed.`,
    );
    expect(await refunds(placed.json.orderId)).toBe(1);
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents).toBe(5_000);

    const events = (await api("/events", { key })).json.events as any[];
    expect(events.find((e) => e.type === "order.cancelled")?.data).toMatchObject({
      orderId: placed.json.orderId,
      error: "CANCELLED BY RESELLER",
      cancelledBy: { by: "reseller", via: "bot" },
    });

    // Another holder cannot touch it.
    await say(HUGO, "/start");
    expect(await say(HUGO, `/cancel ${placed.json.orderId}`)).toBe(`No order of yours matches ${placed.json.orderId}.`);
    await expectBooksBalance();
  });

  it("leaves a top-up already with a supplier as it is", async () => {
    const key = await newKey(GINA);
    const placed = await order(key, { pid: "SVCBR60", trxid: newTrxid("bot-with"), userId: "5123" });
    expect(placed.status, placed.text).toBe(200);
    // As the worker's claim leaves it: an attempt counted, the supplier being asked.
    await sql(`UPDATE orders SET attempts = 1 WHERE public_id = $1`, [placed.json.orderId]);
    expect(await say(GINA, `/cancel ${placed.json.orderId}`)).toBe(
      `${placed.json.orderId} is already with a supplier and cannot be cancelled: it finishes by itself.`,
    );
    expect((await sqlRow(`SELECT status::text FROM orders WHERE public_id = $1`, [placed.json.orderId])).status).toBe(
      "processing",
    );
    expect(await refunds(placed.json.orderId)).toBe(0);
  });

  it("cancels a test order against the test wallet", async () => {
    const testKey = await newKey(GINA, "test");
    await say(GINA, "/testcredit 20");
    const placed = await order(testKey, { pid: "SVCGC10", trxid: newTrxid("bot-test"), quantity: 1 });
    expect(placed.status, placed.text).toBe(200);
    expect(placed.json.livemode).toBe(false);
    expect(await say(GINA, `/cancel ${placed.json.orderId}`)).toBe(
      `${placed.json.orderId} cancelled; $10.00 refunded to your wallet.`,
    );
    expect((await api(`/balance`, { key: testKey })).json).toMatchObject({ livemode: false });
    expect(await refunds(placed.json.orderId)).toBe(1);
    await expectBooksBalance();
  });
});
