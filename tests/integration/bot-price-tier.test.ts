// The bot's /tier: an admin puts an account on a price tier (or back on list prices) by id or
// @username, audited with the admin as actor; the account's key then sees and pays the tier's price
// over real HTTP. Telegram is the local Bot API server (tests/helpers/fake-telegram.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { createPriceTier } from "@/lib/pricing/create-price-tier";
import { setTierPackPrice } from "@/lib/pricing/set-tier-pack-price";
import { api } from "../helpers/api";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import type { FakeUser } from "../helpers/fake-telegram";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";

const ADMIN: FakeUser = { id: 4_800_000_001, first_name: "Ada", username: "ada_admin" };
const HOLDER: FakeUser = { id: 4_800_000_002, first_name: "Rita", username: "rita_resells" };

const bot = useBotHarness({ admins: [ADMIN] });
const { say } = bot;
let holderId: number;
let key: string;

async function shownPrice(pid: string): Promise<number> {
  const res = await api("/products", { key });
  expect(res.status, res.text).toBe(200);
  return res.json.products.find((p: { id: string }) => p.id === pid).price;
}

beforeAll(async () => {
  await seedDemoCatalog();
  expect(await createPriceTier({ name: "gold", actor: "test" })).toMatchObject({ status: "saved" });
  const tierId = (await sqlRow(`SELECT id FROM price_tiers WHERE name = 'gold'`)).id;
  await setTierPackPrice({
    tierId,
    catalogId: "SVCBR60",
    rule: { priceCents: null, percentOffBp: 2000 },
    actor: "test",
  });
  await say(HOLDER, "/start");
  await say(HOLDER, "/api on");
  key = /svc_[A-Za-z0-9]{40}/.exec(await say(HOLDER, "/newkey"))![0];
  holderId = await bot.accountIdOf(HOLDER);
  await creditWallet({ accountId: holderId, amountCents: 1_000, actor: "test", reason: "funding" });
});

describe("/tier", () => {
  it("puts an account on a tier: the key sees and pays its price, new orders only; audited", async () => {
    const before = await order(key, { pid: "SVCBR60", trxid: newTrxid("bot-tier"), userId: "5120001" });
    expect(before.json).toMatchObject({ orderCreated: true, amountUsd: 0.99 });

    expect(await say(ADMIN, "/tier @rita_resells gold")).toBe(
      `Account #${holderId} @rita_resells (Rita) now pays tier gold (was list prices). New orders only: orders already placed keep what they were charged.`,
    );
    expect(await say(ADMIN, `/tier ${holderId} GOLD`)).toBe(
      `Account #${holderId} @rita_resells (Rita) already pays tier gold.`,
    );
    expect(await say(ADMIN, `/account ${holderId}`)).toContain("Price tier: gold");
    expect(await shownPrice("SVCBR60")).toBe(0.79); // 20 % off 99 = 79.2
    const after = await order(key, { pid: "SVCBR60", trxid: newTrxid("bot-tier"), userId: "5120001" });
    expect(after.json).toMatchObject({ orderCreated: true, amountUsd: 0.79 });
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [holderId])).balance_cents).toBe(
      1_000 - 99 - 79,
    );

    expect(await say(ADMIN, `/tier ${holderId} none`)).toBe(
      `Account #${holderId} @rita_resells (Rita) now pays list prices (was tier gold). New orders only: orders already placed keep what they were charged.`,
    );
    expect(await shownPrice("SVCBR60")).toBe(0.99);
    expect(
      await sql(`SELECT actor, action, details FROM audit_log WHERE action = 'account.price_tier' ORDER BY id`),
    ).toEqual([
      {
        actor: `telegram:${ADMIN.id}`,
        action: "account.price_tier",
        details: { from: null, to: "gold", changed: true },
      },
      {
        actor: `telegram:${ADMIN.id}`,
        action: "account.price_tier",
        details: { from: "gold", to: "gold", changed: false },
      },
      {
        actor: `telegram:${ADMIN.id}`,
        action: "account.price_tier",
        details: { from: "gold", to: null, changed: true },
      },
    ]);
    await expectBooksBalance();
  });

  it("answers its usage, and names the tiers when the one given does not exist; nothing changes", async () => {
    const auditBefore = (await sqlRow(`SELECT count(*)::int AS n FROM audit_log`)).n;
    expect(await say(ADMIN, "/tier")).toBe(
      "Usage: /tier <account> <tier|none>\n<account> is an account id (42) or @username.\nTiers: gold. none means list prices.",
    );
    expect(await say(ADMIN, `/tier ${holderId} platinum`)).toBe(
      "No tier platinum. Tiers: gold; none means list prices.",
    );
    expect(await say(ADMIN, "/tier @nobody_here gold")).toBe(
      "No account @nobody_here. Name it by account id (42) or @username.",
    );
    expect((await sqlRow(`SELECT price_tier_id FROM accounts WHERE id = $1`, [holderId])).price_tier_id).toBeNull();
    expect((await sqlRow(`SELECT count(*)::int AS n FROM audit_log`)).n).toBe(auditBefore);
  });

  it("is refused to a holder who is not an admin", async () => {
    expect(await say(HOLDER, `/tier ${holderId} gold`)).toBe("Sorry, this command is only for admins.");
    expect((await sqlRow(`SELECT price_tier_id FROM accounts WHERE id = $1`, [holderId])).price_tier_id).toBeNull();
  });
});
