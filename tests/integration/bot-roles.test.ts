// One set of roles for the bot and the dashboard, through the real bot against the local Bot API: a
// Telegram admin is a dashboard admin user linked with a one-time code (/link), each admin command
// needs the role of its dashboard action, and a credit above the owner-set amount needs a second
// admin, credited exactly once when two admins approve at the same moment.
import { beforeAll, describe, expect, it } from "vitest";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { issueTelegramLinkCode } from "@/lib/admin-users/issue-telegram-link-code";
import { unlinkTelegramAccount } from "@/lib/admin-users/unlink-telegram-account";
import { resetAdminTwoFactor } from "@/lib/admin-users/reset-admin-two-factor";
import { setLargeCreditThreshold } from "@/lib/settings/set-large-credit-threshold";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import { buttonsOf, plain, type FakeUser, type RecordedCall } from "../helpers/fake-telegram";
import { expectBooksBalance } from "../helpers/orders";
import { createLinkedAdmin } from "../helpers/telegram-admins";
import { enableTwoFactor } from "../helpers/two-factor";

const OWNER: FakeUser = { id: 4_700_000_001, first_name: "Olga" };
const OPERATOR: FakeUser = { id: 4_700_000_002, first_name: "Oscar" };
const SECOND_OPERATOR: FakeUser = { id: 4_700_000_003, first_name: "Petra" };
const VIEWER: FakeUser = { id: 4_700_000_004, first_name: "Vera" };
const HOLDER: FakeUser = { id: 4_700_000_005, first_name: "Hugo", username: "hugo_shop" };
const BOOTSTRAP: FakeUser = { id: 4_700_000_006, first_name: "Boots" };

const bot = useBotHarness({
  admins: [
    { user: OWNER, role: "owner" },
    { user: OPERATOR, role: "operator" },
    { user: SECOND_OPERATOR, role: "operator" },
    { user: VIEWER, role: "viewer" },
  ],
  bootstrapIds: [BOOTSTRAP],
});
const { say } = bot;
let holderId: number;

beforeAll(async () => {
  await bot.fake.send(HOLDER, "/start");
  holderId = await bot.accountIdOf(HOLDER);
  await sql(`INSERT INTO price_tiers (name) VALUES ('gold')`);
});

const count = async (table: string) => (await sqlRow(`SELECT count(*)::int AS n FROM ${table}`)).n as number;
const balance = async () =>
  (await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [holderId])).balance_cents as number;
const tierOf = async () =>
  (
    await sqlRow(`SELECT t.name FROM accounts a LEFT JOIN price_tiers t ON t.id = a.price_tier_id WHERE a.id = $1`, [
      holderId,
    ])
  ).name as string | null;

describe("each admin command needs the role of its dashboard action", () => {
  it("a viewer reads an account but /credit, /debit, /ban and /tier are refused, changing nothing", async () => {
    expect(await say(VIEWER, "/account @hugo_shop")).toContain(`Account #${holderId} @hugo_shop`);
    const requests = await count("admin_action_requests");
    expect(await say(VIEWER, `/credit ${holderId} 5`)).toBe(
      `Sorry, /credit needs the operator role; viewer-${VIEWER.id}@example.test is a viewer.`,
    );
    expect(await say(VIEWER, `/debit ${holderId} 5 oops`)).toContain("/debit needs the operator role");
    expect(await say(VIEWER, `/ban ${holderId}`)).toContain("/ban needs the operator role");
    expect(await say(VIEWER, `/tier ${holderId} gold`)).toBe(
      `Sorry, /tier needs the owner role; viewer-${VIEWER.id}@example.test is a viewer.`,
    );
    expect(await count("admin_action_requests")).toBe(requests);
    expect(await tierOf()).toBeNull();
    expect(await sql(`SELECT banned_at FROM accounts WHERE id = $1`, [holderId])).toEqual([{ banned_at: null }]);
    // /help lists what the role allows, and no more.
    const help = await say(VIEWER, "/help");
    expect(help).toContain("/account <account>");
    expect(help).not.toContain("/credit <account>");
  });

  it("an operator credits, but /tier (owners' on the dashboard) is refused", async () => {
    expect(await say(OPERATOR, `/tier ${holderId} gold`)).toBe(
      `Sorry, /tier needs the owner role; operator-${OPERATOR.id}@example.test is an operator.`,
    );
    expect(await tierOf()).toBeNull();
    const summary = bot.messageTo(await bot.fake.send(OPERATOR, `/credit ${holderId} 5 small`), OPERATOR);
    expect(buttonsOf(summary).map(([label]) => label)).toEqual(["✅ Confirm credit", "Cancel"]);
    // A viewer pressing the operator's Confirm is refused before anything runs.
    const [[, confirm]] = buttonsOf(summary) as [[string, string]];
    const pressed = await bot.fake.press(VIEWER, confirm, summary.response.message_id);
    expect(pressed.map((call) => call.method)).toEqual(["answerCallbackQuery"]);
    expect(pressed[0]!.payload.text).toContain("needs the operator role");
    const done = await bot.fake.press(OPERATOR, confirm, summary.response.message_id);
    expect(done.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe("Credited");
    expect(await balance()).toBe(500);
  });

  it("an owner sets a tier; an owner without two-factor is refused", async () => {
    expect(await say(OWNER, `/tier ${holderId} gold`)).toContain("now pays tier gold");
    expect(await tierOf()).toBe("gold");
    const lax: FakeUser = { id: 4_700_000_007, first_name: "Lax" };
    await createLinkedAdmin(lax, "owner", { twoFactor: false });
    expect(await say(lax, `/tier ${holderId} none`)).toBe(
      `Sorry, /tier needs two-factor on for owner-${lax.id}@example.test, as the dashboard does: enrol again there (Your account).`,
    );
    expect(await tierOf()).toBe("gold");
  });

  it("an operator whose two-factor an owner reset runs no admin command until they enrol again", async () => {
    const reset: FakeUser = { id: 4_700_000_009, first_name: "Rita" };
    const admin = await createLinkedAdmin(reset, "operator");
    expect(await say(reset, "/account @hugo_shop")).toContain(`Account #${holderId}`);
    expect(
      await resetAdminTwoFactor({ adminId: admin.adminId, actor: `admin:owner-${OWNER.id}@example.test` }),
    ).toEqual({ status: "reset", email: admin.email });
    const before = await balance();
    const requests = await count("admin_action_requests");
    expect(await say(reset, `/credit ${holderId} 5 after reset`)).toBe(
      `Sorry, /credit needs two-factor on for ${admin.email}, as the dashboard does: enrol again there (Your account).`,
    );
    expect(await say(reset, "/account @hugo_shop")).toContain("/account needs two-factor on");
    expect(await say(reset, "/help")).not.toContain("/account <account>");
    expect(await count("admin_action_requests")).toBe(requests);
    expect(await balance()).toBe(before);
    // Enrolled again (on the dashboard): the bot follows at once.
    await enableTwoFactor(admin.email);
    expect(await say(reset, "/account @hugo_shop")).toContain(`Account #${holderId}`);
  });

  it("the role is read afresh for every update: demoted, disabled or unlinked counts at once", async () => {
    const temp: FakeUser = { id: 4_700_000_008, first_name: "Tem" };
    const admin = await createLinkedAdmin(temp, "operator");
    expect(await say(temp, "/maintenance")).toContain("Maintenance is off");
    await sql(`UPDATE admin_users SET role = 'viewer' WHERE id = $1`, [admin.adminId]);
    expect(await say(temp, "/maintenance on")).toContain("/maintenance needs the operator role");
    await sql(`UPDATE admin_users SET disabled = true WHERE id = $1`, [admin.adminId]);
    expect(await say(temp, "/account @hugo_shop")).toBe("Sorry, this command is only for admins.");
    await sql(`UPDATE admin_users SET disabled = false WHERE id = $1`, [admin.adminId]);
    expect(await say(temp, "/account @hugo_shop")).toContain(`Account #${holderId}`);
    await unlinkTelegramAccount({ adminId: admin.adminId, actor: `admin:${admin.email}` });
    expect(await say(temp, "/account @hugo_shop")).toBe("Sorry, this command is only for admins.");
    expect(await sql(`SELECT value FROM settings WHERE key = 'MAINTENANCE'`)).toEqual([]);
  });

  it("ADMIN_TELEGRAM_IDS grants no command: a listed id is told to link", async () => {
    const reply = await say(BOOTSTRAP, `/credit ${holderId} 5`);
    expect(reply).toContain("ADMIN_TELEGRAM_IDS alone grants none");
    expect(reply).toContain("send it here after /link");
  });
});

describe("/link with a one-time code from the dashboard", () => {
  const NEWCOMER: FakeUser = { id: 4_700_000_010, first_name: "Nina" };
  let adminId: number;

  beforeAll(async () => {
    const created = await createAdminUser({
      email: "nina@example.test",
      password: "a long enough test password",
      role: "operator",
      actor: "test",
    });
    if (created.status !== "created") throw new Error(created.status);
    adminId = created.admin.id;
    // The dashboard that hands out link codes opens only with two-factor on.
    await enableTwoFactor("nina@example.test");
  });

  const refusal = (text: string) => expect(text).toContain("That code is wrong, expired or already used.");

  it("refuses a wrong, an expired, a replaced and a used code; links with a valid one", async () => {
    expect(await say(NEWCOMER, "/link")).toContain("Usage: /link <code>");
    refusal(await say(NEWCOMER, "/link ABCDE-FGHJK"));
    refusal(await say(NEWCOMER, "/link not-a-code"));

    const expired = await issueTelegramLinkCode({ adminId, actor: "admin:nina@example.test" });
    await sql(
      `UPDATE admin_telegram_link_codes SET expires_at = now() - interval '1 second' WHERE admin_user_id = $1`,
      [adminId],
    );
    refusal(await say(NEWCOMER, `/link ${expired.code}`));

    const replaced = await issueTelegramLinkCode({ adminId, actor: "admin:nina@example.test" });
    const current = await issueTelegramLinkCode({ adminId, actor: "admin:nina@example.test" });
    refusal(await say(NEWCOMER, `/link ${replaced.code}`));
    expect(await say(NEWCOMER, "/account @hugo_shop")).toBe("Sorry, this command is only for admins.");

    // Typed in lower case without the dash: the same code.
    expect(await say(NEWCOMER, `/link ${current.code.replace("-", "").toLowerCase()}`)).toBe(
      "✅ Linked to admin nina@example.test (role operator). Admin commands here follow that role; /help lists them. Unlink on the dashboard (Your account).",
    );
    expect(await say(NEWCOMER, "/account @hugo_shop")).toContain(`Account #${holderId}`);
    expect(await sql(`SELECT telegram_id FROM admin_telegram_links WHERE admin_user_id = $1`, [adminId])).toEqual([
      { telegram_id: NEWCOMER.id },
    ]);

    // Used once: nobody can use it again, not even to move the link to themselves.
    const thief: FakeUser = { id: 4_700_000_011, first_name: "Thief" };
    refusal(await say(thief, `/link ${current.code}`));
    expect(await say(thief, "/account @hugo_shop")).toBe("Sorry, this command is only for admins.");
    const audit = await sql(
      `SELECT actor, action FROM audit_log WHERE target_type = 'admin_user' AND target_id = $1 ORDER BY id`,
      [String(adminId)],
    );
    expect(audit.filter((row) => row.action === "admin_user.telegram_link")).toEqual([
      { actor: `telegram:${NEWCOMER.id}`, action: "admin_user.telegram_link" },
    ]);
  });

  it("a Telegram account linked to one admin cannot take another admin's code", async () => {
    const code = await issueTelegramLinkCode({ adminId, actor: "admin:nina@example.test" });
    expect(await say(OPERATOR, `/link ${code.code}`)).toContain("already linked to another admin");
    expect(await sql(`SELECT telegram_id FROM admin_telegram_links WHERE admin_user_id = $1`, [adminId])).toEqual([
      { telegram_id: NEWCOMER.id },
    ]);
  });

  it("a disabled admin's code links nothing", async () => {
    const code = await issueTelegramLinkCode({ adminId, actor: "admin:nina@example.test" });
    await sql(`UPDATE admin_users SET disabled = true WHERE id = $1`, [adminId]);
    try {
      refusal(await say({ id: 4_700_000_012, first_name: "Other" }, `/link ${code.code}`));
    } finally {
      await sql(`UPDATE admin_users SET disabled = false WHERE id = $1`, [adminId]);
    }
  });
});

describe("four eyes on large credits", () => {
  const THRESHOLD_CENTS = 10_000;

  const emailOf = (user: FakeUser, role: string) => `${role}-${user.id}@example.test`;

  beforeAll(async () => {
    await setLargeCreditThreshold(THRESHOLD_CENTS, "admin:owner@example.test");
    // Only the four admins of the harness from here on (the tests above linked a few more).
    await sql(`UPDATE admin_users SET disabled = true WHERE email <> ALL($1)`, [
      [
        emailOf(OWNER, "owner"),
        emailOf(OPERATOR, "operator"),
        emailOf(SECOND_OPERATOR, "operator"),
        emailOf(VIEWER, "viewer"),
      ],
    ]);
  });

  /** The approval message `admin` got among `calls`, with its Approve and Reject data. */
  function approvalTo(calls: RecordedCall[], admin: FakeUser) {
    const message = bot.messageTo(calls, admin);
    const buttons = buttonsOf(message);
    expect(buttons.map(([label]) => label)).toEqual(["✅ Approve credit", "Reject"]);
    return { message, approve: buttons[0]![1], reject: buttons[1]![1], messageId: message.response.message_id };
  }

  it("at or below the amount, /credit works as before: the admin's own Confirm", async () => {
    const calls = await bot.fake.send(OPERATOR, `/credit ${holderId} 100`);
    expect(calls.filter((call) => call.method === "sendMessage").map((call) => Number(call.payload.chat_id))).toEqual([
      OPERATOR.id,
    ]);
    expect(buttonsOf(calls[0]).map(([label]) => label)).toEqual(["✅ Confirm credit", "Cancel"]);
  });

  it("above it, the other admins who may credit are asked; the requester cannot approve; two approving at once credit once", async () => {
    const before = await balance();
    const entries = await count("ledger_entries");
    const calls = await bot.fake.send(OPERATOR, `/credit @hugo_shop 500 big deposit`);
    const told = calls.filter((call) => call.method === "sendMessage").map((call) => Number(call.payload.chat_id));
    // Not the viewer (who may not credit), not the requester's own chat twice.
    expect(told.sort()).toEqual([OWNER.id, SECOND_OPERATOR.id, OPERATOR.id].sort());
    const requesterView = bot.messageTo(calls, OPERATOR);
    expect(plain(requesterView.payload.text)).toContain(
      "Above $100.00: a second admin must approve it. Asked 2 admins",
    );
    expect(buttonsOf(requesterView).map(([label]) => label)).toEqual(["Withdraw"]);
    const toOwner = approvalTo(calls, OWNER);
    const toSecond = approvalTo(calls, SECOND_OPERATOR);
    expect(plain(toOwner.message.payload.text)).toContain(`Asked by operator-${OPERATOR.id}@example.test`);
    expect(plain(toOwner.message.payload.text)).toContain("Credit $500.00 to account");
    expect(toOwner.approve).toBe(toSecond.approve);

    // The requester presses Approve (the data is in the others' buttons): refused, nothing moves.
    const own = await bot.fake.press(OPERATOR, toOwner.approve, requesterView.response.message_id);
    expect(own.find((call) => call.method === "answerCallbackQuery")?.payload).toMatchObject({
      text: "A second admin must approve your own credit.",
      show_alert: true,
    });
    expect(await balance()).toBe(before);

    // Both other admins press Approve in the same instant: one getUpdates batch, handled concurrently.
    const mark = bot.fake.calls.length;
    await bot.fake.deliver(
      bot.fake.callback(OWNER, toOwner.approve, toOwner.messageId),
      bot.fake.callback(SECOND_OPERATOR, toSecond.approve, toSecond.messageId),
    );
    const answers = bot.fake.calls
      .slice(mark)
      .filter((call) => call.method === "answerCallbackQuery")
      .map((call) => call.payload.text)
      .sort();
    expect(answers).toEqual(["Approved and credited", "This credit of $500.00 was already confirmed."].sort());
    expect(await balance()).toBe(before + 50_000);
    expect(await count("ledger_entries")).toBe(entries + 1);
    const request = await sqlRow(
      `SELECT id, status, resolved_by, needs_approval FROM admin_action_requests WHERE note = 'big deposit'`,
    );
    expect(request.status).toBe("confirmed");
    expect(request.needs_approval).toBe(true);
    expect([`telegram:${OWNER.id}`, `telegram:${SECOND_OPERATOR.id}`]).toContain(request.resolved_by);
    const credited = await sql(
      `SELECT actor, details FROM audit_log WHERE action = 'wallet.credit' AND details->>'requestId' = $1`,
      [String(request.id)],
    );
    expect(credited).toHaveLength(1);
    expect(credited[0]!.actor).toBe(request.resolved_by);
    expect(credited[0]!.details).toMatchObject({
      approvedBy: request.resolved_by,
      requestedBy: `telegram:${OPERATOR.id}`,
    });
    // The requester and the holder are each told once.
    const later = bot.fake.calls.slice(mark).filter((call) => call.method === "sendMessage");
    expect(plain(bot.messageTo(later, OPERATOR).payload.text)).toContain("approved your credit: $500.00 credited");
    expect(plain(bot.messageTo(later, HOLDER).payload.text)).toContain("Your wallet was credited with $500.00.");
    await expectBooksBalance();
  });

  it("a reject closes it for good; the requester is told and nothing is credited", async () => {
    const before = await balance();
    const calls = await bot.fake.send(SECOND_OPERATOR, `/credit ${holderId} 250 to reject`);
    const toOwner = approvalTo(calls, OWNER);
    const toOperator = approvalTo(calls, OPERATOR);
    const rejected = await bot.fake.press(OWNER, toOwner.reject, toOwner.messageId);
    expect(rejected.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe("Rejected");
    expect(plain(bot.messageTo(rejected, SECOND_OPERATOR).payload.text)).toContain(
      `owner-${OWNER.id}@example.test rejected your credit of $250.00`,
    );
    const late = await bot.fake.press(OPERATOR, toOperator.approve, toOperator.messageId);
    expect(late.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe(
      "This credit of $250.00 was already cancelled.",
    );
    expect(await balance()).toBe(before);
    expect(await sql(`SELECT status, resolved_by FROM admin_action_requests WHERE note = 'to reject'`)).toEqual([
      { status: "cancelled", resolved_by: `telegram:${OWNER.id}` },
    ]);
    expect(await sql(`SELECT actor FROM audit_log WHERE action = 'wallet.credit_rejected'`)).toEqual([
      { actor: `telegram:${OWNER.id}` },
    ]);
  });

  it("with no other admin who may credit, nothing is requested", async () => {
    await sql(`UPDATE admin_users SET disabled = true WHERE role = 'operator'`);
    try {
      const calls = await bot.fake.send(OWNER, `/credit ${holderId} 300 alone`);
      expect(calls.filter((call) => call.method === "sendMessage")).toHaveLength(1);
      const reply = plain(bot.messageTo(calls, OWNER).payload.text);
      expect(reply).toContain("Not requested: credits above $100.00 need a second admin's approval");
      expect(buttonsOf(calls[0])).toEqual([]);
      expect(await sql(`SELECT status FROM admin_action_requests WHERE note = 'alone'`)).toEqual([
        { status: "cancelled" },
      ]);
    } finally {
      await sql(`UPDATE admin_users SET disabled = false WHERE role = 'operator'`);
    }
    await expectBooksBalance();
  });
});
