// Acceptance 3: a user who is not an admin sends every admin command, with arguments that would
// work for an admin, and presses a real admin's Confirm button: each gets a refusal, and nothing in
// the database changes (apart from the record that the update was seen). Neither accounts.is_admin
// nor ADMIN_TELEGRAM_IDS makes anyone an admin: only a linked admin user does.
import { describe, expect, it } from "vitest";
import { ADMIN_COMMAND_NAMES } from "@/bot/commands";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import { buttonsOf, plain, type FakeUser } from "../helpers/fake-telegram";

const ADMIN: FakeUser = { id: 4_300_000_001, first_name: "Ada", username: "ada_admin" };
const MALLORY: FakeUser = { id: 4_300_000_002, first_name: "Mallory", username: "mallory" };
const VICTIM: FakeUser = { id: 4_300_000_003, first_name: "Victor", username: "victor" };
const BOOTSTRAP: FakeUser = { id: 4_300_000_005, first_name: "Boots" };

const bot = useBotHarness({ admins: [ADMIN], bootstrapIds: [BOOTSTRAP] });

/** Every table's full contents except the update-id log, which records that updates were seen. */
async function snapshot(): Promise<Record<string, unknown[]>> {
  const tables = await sql<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('_prisma_migrations', 'processed_telegram_updates') ORDER BY tablename`,
  );
  const result: Record<string, unknown[]> = {};
  for (const { tablename } of tables) result[tablename] = await sql(`SELECT * FROM "${tablename}" ORDER BY 1`);
  return result;
}

describe("a non-admin sending admin commands", () => {
  it("gets a refusal for each, and nothing changes", async () => {
    await bot.fake.send(MALLORY, "/start");
    await bot.fake.send(VICTIM, "/start");
    const victimId = (await sqlRow(`SELECT id FROM accounts WHERE telegram_id = $1`, [VICTIM.id])).id;
    const malloryId = (await sqlRow(`SELECT id FROM accounts WHERE telegram_id = $1`, [MALLORY.id])).id;
    // A tier /tier could move the victim to.
    await sql(`INSERT INTO price_tiers (name) VALUES ('gold')`);
    // A real pending credit of the admin's, whose button Mallory will try to press.
    const summaryCalls = await bot.fake.send(ADMIN, `/credit ${victimId} 40 pending`);
    const summary = summaryCalls.find((call) => buttonsOf(call).length === 2)!;
    const [[, confirm], [, cancel]] = buttonsOf(summary) as [[string, string], [string, string]]; // the two found above

    const commands = [
      `/credit ${malloryId} 1000`,
      `/credit @mallory 5 gift`,
      `/debit ${victimId} 10 because`,
      `/account ${victimId}`,
      `/account @victor`,
      `/ban ${victimId} spite`,
      `/unban ${malloryId}`,
      `/restrict ${victimId} 60`,
      `/block ${victimId}`,
      `/unblock ${malloryId}`,
      `/tier ${malloryId} none`,
      `/tier ${victimId} gold`,
      `/maintenance on`,
      `/maintenance off`,
      `/maintenance`,
      `/ordersoff on`,
      `/ordersoff off`,
      `/credit@${bot.fake.botUser.username} ${malloryId} 1`,
      `/credit`,
    ];
    // The list covers every admin command the bot has.
    const covered = new Set(commands.map((text) => /^\/([a-z]+)/.exec(text)![1]));
    for (const name of ADMIN_COMMAND_NAMES) expect(covered, `admin command /${name} is not tried`).toContain(name);

    const before = await snapshot();
    for (const text of commands) {
      const calls = await bot.fake.send(MALLORY, text);
      expect(
        calls.map((call) => call.method),
        text,
      ).toEqual(["sendMessage"]);
      expect(Number(calls[0]!.payload.chat_id)).toBe(MALLORY.id);
      expect(calls[0]!.payload.text, text).toBe("Sorry, this command is only for admins.");
    }
    for (const data of [confirm, cancel]) {
      const calls = await bot.fake.press(MALLORY, data, summary.response.message_id);
      expect(calls.map((call) => call.method)).toEqual(["answerCallbackQuery"]);
      expect(calls[0]!.payload).toMatchObject({ text: "Only admins can do this.", show_alert: true });
    }
    expect(await snapshot()).toEqual(before);

    // Nothing was credited, and the admin's request is still pending for the admin.
    expect(await sql(`SELECT status FROM admin_action_requests`)).toEqual([{ status: "pending" }]);
    const confirmed = await bot.fake.press(ADMIN, confirm, summary.response.message_id);
    expect(confirmed.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe("Credited");
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [victimId])).balance_cents).toBe(4000);
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [malloryId])).balance_cents).toBe(0);
  });

  it("an unregistered stranger is refused the same way", async () => {
    const stranger: FakeUser = { id: 4_300_000_009, first_name: "Stranger" };
    const before = await snapshot();
    const calls = await bot.fake.send(stranger, "/credit 1 5");
    expect(calls.map((call) => plain(call.payload.text))).toEqual(["Sorry, this command is only for admins."]);
    expect(await snapshot()).toEqual(before);
  });

  it("accounts.is_admin and ADMIN_TELEGRAM_IDS grant nothing; a listed id is told how to link", async () => {
    const carol: FakeUser = { id: 4_300_000_004, first_name: "Carol", username: "carol_ops" };
    await bot.fake.send(carol, "/start");
    await sql(`UPDATE accounts SET is_admin = true WHERE telegram_id = $1`, [carol.id]);
    const before = await snapshot();
    expect((await bot.fake.send(carol, "/account @victor")).map((call) => call.payload.text)).toEqual([
      "Sorry, this command is only for admins.",
    ]);
    const told = await bot.fake.send(BOOTSTRAP, "/credit @victor 5");
    expect(told.map((call) => call.method)).toEqual(["sendMessage"]);
    expect(plain(told[0]!.payload.text)).toContain("ADMIN_TELEGRAM_IDS alone grants none");
    expect(plain(told[0]!.payload.text)).toContain("send it here after /link");
    expect(await snapshot()).toEqual(before);
  });
});
