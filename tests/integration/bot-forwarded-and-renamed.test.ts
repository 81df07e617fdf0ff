// Two ways a command could act on the wrong thing: a forwarded message (someone else's words) and an
// @username that changed hands between /credit and its Confirm. Both run against the real bot over
// the local Bot API server, and are checked in the database.
import { describe, expect, it } from "vitest";
import { refreshTelegramProfile } from "@/lib/accounts/refresh-telegram-profile";
import { confirmWalletAdjustment } from "@/lib/wallet/confirm-wallet-adjustment";
import { requestWalletAdjustment } from "@/lib/wallet/request-wallet-adjustment";
import { FORWARDED_COMMAND_NOTE } from "@/bot/middleware/ignore-forwarded-commands";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import { buttonsOf, plain, type FakeUser, type RecordedCall } from "../helpers/fake-telegram";
import { expectBooksBalance } from "../helpers/orders";

const ADMIN: FakeUser = { id: 4_700_000_001, first_name: "Ada", username: "ada_admin" };
const HOLDER: FakeUser = { id: 4_700_000_002, first_name: "Hal", username: "hal_shop" };
const STRANGER: FakeUser = { id: 4_700_000_003, first_name: "Mal", username: "mal_lory" };

const bot = useBotHarness({ admins: [ADMIN] });
const accountIdOf = bot.accountIdOf;

async function balanceOf(accountId: number): Promise<number> {
  return (await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents;
}

function textsTo(calls: RecordedCall[], user: FakeUser): string[] {
  return calls
    .filter((call) => call.method === "sendMessage" && Number(call.payload.chat_id) === user.id)
    .map((call) => plain(call.payload.text));
}

/** The admin's /credit summary message and its Confirm button. */
async function requestCredit(text: string): Promise<{ summary: RecordedCall; confirm: string }> {
  const calls = await bot.fake.send(ADMIN, text);
  const summary = calls.find((call) => call.method === "sendMessage" && buttonsOf(call).length === 2);
  expect(summary, JSON.stringify(calls)).toBeDefined();
  return { summary: summary!, confirm: buttonsOf(summary)[0]![1] };
}

async function pressConfirm(summary: RecordedCall, confirm: string) {
  const calls = await bot.fake.press(ADMIN, confirm, summary.response.message_id);
  return {
    answer: calls.find((call) => call.method === "answerCallbackQuery")?.payload.text as string | undefined,
    edited: plain(calls.find((call) => call.method === "editMessageText")?.payload.text ?? ""),
  };
}

describe("commands in forwarded messages", () => {
  it("are not run, for a holder or an admin, while the same command typed does run", async () => {
    // Forwarded /start does not register anyone.
    expect(textsTo(await bot.fake.sendForwarded(HOLDER, "/start", STRANGER), HOLDER)).toEqual([FORWARDED_COMMAND_NOTE]);
    expect(await sql(`SELECT id FROM accounts WHERE telegram_id = $1`, [HOLDER.id])).toEqual([]);

    await bot.fake.send(HOLDER, "/start");
    const holderId = await accountIdOf(HOLDER);
    const keysBefore = (await sqlRow(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1`, [holderId])).n;

    // A holder forwarding /newkey or /api on gets no key and no change.
    for (const command of ["/newkey", "/api on", "/ip add 203.0.113.7"]) {
      const calls = await bot.fake.sendForwarded(HOLDER, command, STRANGER);
      expect(textsTo(calls, HOLDER), command).toEqual([FORWARDED_COMMAND_NOTE]);
    }
    expect((await sqlRow(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1`, [holderId])).n).toBe(
      keysBefore,
    );
    expect((await sqlRow(`SELECT api_enabled FROM accounts WHERE id = $1`, [holderId])).api_enabled).toBe(false);

    // An admin forwarding a holder's "/credit ..." (say, to ask about it) creates no request.
    const calls = await bot.fake.sendForwarded(ADMIN, `/credit ${holderId} 50 please`, HOLDER);
    expect(textsTo(calls, ADMIN)).toEqual([FORWARDED_COMMAND_NOTE]);
    expect(calls.some((call) => buttonsOf(call).length > 0)).toBe(false);
    expect(await sql(`SELECT id FROM admin_action_requests`)).toEqual([]);
    expect(await balanceOf(holderId)).toBe(0);

    // Typed by the holder, the same command runs.
    expect(textsTo(await bot.fake.send(HOLDER, "/newkey"), HOLDER).join("\n")).toMatch(/svc_[A-Za-z0-9]{40}/);
    expect((await sqlRow(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1`, [holderId])).n).toBe(
      keysBefore + 1,
    );
  });

  it("a forwarded message that is not a command is answered as any other text", async () => {
    expect(textsTo(await bot.fake.sendForwarded(HOLDER, "hello there", STRANGER), HOLDER)).toEqual([
      "Send /help to see what I can do.",
    ]);
  });
});

describe("/credit @username, confirmed after the name changed hands", () => {
  it("shows the account id and current username, then refuses on Confirm: nothing moves, the request is closed and audited", async () => {
    const alice: FakeUser = { id: 4_700_000_010, first_name: "Alice", username: "alice_shop" };
    const taker: FakeUser = { id: 4_700_000_011, first_name: "Taker", username: "someone_else" };
    await bot.fake.send(alice, "/start");
    const aliceId = await accountIdOf(alice);

    const { summary, confirm } = await requestCredit("/credit @ALICE_shop 25 welcome");
    expect(plain(summary.payload.text)).toContain(`Credit $25.00 to account #${aliceId} @alice_shop (Alice)`);

    // Alice renames herself and someone else takes @alice_shop; both talk to the bot, which stores it.
    await bot.fake.send({ ...alice, username: "alice_new" }, "/balance");
    await bot.fake.send({ ...taker, username: "alice_shop" }, "/start");
    const takerId = await accountIdOf(taker);

    const { answer, edited } = await pressConfirm(summary, confirm);
    expect(answer).toBe("Refused: the username changed");
    expect(edited).toContain(`Refused: account #${aliceId} is no longer @alice_shop (now @alice_new)`);
    expect(edited).toContain("Nothing was credited.");

    expect(await balanceOf(aliceId)).toBe(0);
    expect(await balanceOf(takerId)).toBe(0);
    expect(await sql(`SELECT id FROM ledger_entries WHERE account_id IN ($1, $2)`, [aliceId, takerId])).toEqual([]);
    const request = await sqlRow(`SELECT status, account_username FROM admin_action_requests WHERE account_id = $1`, [
      aliceId,
    ]);
    expect(request).toEqual({ status: "cancelled", account_username: "alice_shop" });
    const audit = await sqlRow(
      `SELECT details FROM audit_log WHERE action = 'wallet.username_changed' AND target_id = $1`,
      [String(aliceId)],
    );
    expect(audit.details).toMatchObject({
      namedUsername: "alice_shop",
      currentUsername: "alice_new",
      amountCents: 2500,
    });

    // Pressing Confirm again does nothing more.
    expect((await pressConfirm(summary, confirm)).answer).toBe("This credit of $25.00 was already cancelled.");
    expect(await balanceOf(aliceId)).toBe(0);
    await expectBooksBalance();
  });

  it("the same name in another case, or an account named by id, is credited even after a rename", async () => {
    const carol: FakeUser = { id: 4_700_000_020, first_name: "Carol", username: "Carol_Shop" };
    await bot.fake.send(carol, "/start");
    const carolId = await accountIdOf(carol);

    const byName = await requestCredit("/credit @carol_shop 3");
    const byId = await requestCredit(`/credit ${carolId} 4`);
    expect((await pressConfirm(byName.summary, byName.confirm)).answer).toBe("Credited");
    expect(await balanceOf(carolId)).toBe(300);

    await bot.fake.send({ ...carol, username: "carol_renamed" }, "/balance");
    expect((await pressConfirm(byId.summary, byId.confirm)).answer).toBe("Credited");
    expect(await balanceOf(carolId)).toBe(700);
    await expectBooksBalance();
  });

  it("a rename racing Confirm: the credit lands before the rename or not at all, never after it", async () => {
    const ADMIN_ID = ADMIN.id;
    for (let round = 0; round < 8; round++) {
      const user: FakeUser = { id: 4_700_000_100 + round, first_name: "Racer", username: `racer_${round}` };
      await bot.fake.send(user, "/start");
      const accountId = await accountIdOf(user);
      const requested = await requestWalletAdjustment({
        kind: "credit",
        accountId,
        amountCents: 100,
        note: null,
        adminTelegramId: ADMIN_ID,
        adminUserId: 1,
        actor: `telegram:${ADMIN_ID}`,
        accountUsername: `racer_${round}`,
      });
      if (requested.status !== "requested") throw new Error(requested.status);
      const confirmations = Array.from({ length: 4 }, () =>
        confirmWalletAdjustment({
          token: requested.request.token,
          adminTelegramId: ADMIN_ID,
          adminUserId: 1,
          actor: `telegram:${ADMIN_ID}`,
        }),
      );
      const [rename, ...outcomes] = await Promise.all([
        refreshTelegramProfile({ telegramId: user.id, username: `renamed_${round}`, displayName: "Racer" }),
        ...confirmations,
      ]);
      expect(rename?.telegramUsername).toBe(`renamed_${round}`);
      const statuses = outcomes.map((outcome) => outcome.status);
      const confirmed = statuses.filter((status) => status === "confirmed").length;
      const refused = statuses.filter((status) => status === "username_changed").length;
      // Either one press credits (the others find it resolved) or the presses are refused; never both.
      expect(confirmed, statuses.join()).toBeLessThanOrEqual(1);
      expect(confirmed === 1 ? refused === 0 : refused >= 1, statuses.join()).toBe(true);
      expect(
        statuses.every((status) => ["confirmed", "username_changed", "already_resolved"].includes(status)),
        statuses.join(),
      ).toBe(true);
      expect(await balanceOf(accountId)).toBe(confirmed ? 100 : 0);
      const request = await sqlRow(`SELECT status FROM admin_action_requests WHERE token = $1`, [
        requested.request.token,
      ]);
      expect(request.status).toBe(confirmed ? "confirmed" : "cancelled");
    }
    await expectBooksBalance();
  });
});
