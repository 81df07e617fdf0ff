// Deposit requests through the real bot against the local Bot API, files included: /deposit answers
// the owner's payment methods with an amount unique among open requests and a reference; a photo or
// a document reaches the request through getFile and the file download; the admins who may credit
// get Approve / Reject; two admins approving at once credit once; a rejection tells the holder why;
// an expired request closes by itself (the worker's look). The holder's messages go out through a
// worker process, as the service sends them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDepositSettings } from "@/lib/deposits/deposit-settings";
import { setLargeCreditThreshold } from "@/lib/settings/set-large-credit-threshold";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import { buttonsOf, plain, type FakeUser, type RecordedCall } from "../helpers/fake-telegram";
import { startNoticeWorker, type NoticeWorker } from "../helpers/bot-notices";
import { expectBooksBalance } from "../helpers/orders";

const OPERATOR: FakeUser = { id: 4_900_000_001, first_name: "Oscar" };
const SECOND_OPERATOR: FakeUser = { id: 4_900_000_002, first_name: "Petra" };
const VIEWER: FakeUser = { id: 4_900_000_003, first_name: "Vera" };
const HOLDER: FakeUser = { id: 4_900_000_004, first_name: "Hugo", username: "hugo_pays" };
const OTHERS: FakeUser[] = [5, 6, 7, 8, 9].map((n) => ({ id: 4_900_000_000 + n, first_name: `Holder ${n}` }));
/** The bootstrap owner's chat: no owner is linked, so the worker's marker notices come here. */
const OWNER_CHAT = 4_900_000_099;

const bot = useBotHarness({
  admins: [
    { user: OPERATOR, role: "operator" },
    { user: SECOND_OPERATOR, role: "operator" },
    { user: VIEWER, role: "viewer" },
  ],
});
let notices: NoticeWorker;
let holderId: number;

beforeAll(async () => {
  notices = await startNoticeWorker(bot.fake, OWNER_CHAT);
  for (const user of [HOLDER, ...OTHERS]) await bot.fake.send(user, "/start");
  holderId = await bot.accountIdOf(HOLDER);
});
afterAll(async () => {
  await notices?.stop();
});

/** What the worker told the holder about `reference` (the bot's own replies aside). */
const toldHolder = (reference: string) =>
  notices.textsTo(HOLDER.id).filter((text) => text.includes(reference) && !text.includes("Deposit request"));
const balance = async () =>
  Number((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [holderId])).balance_cents);
const depositOf = (reference: string) => sqlRow(`SELECT * FROM deposit_requests WHERE reference = $1`, [reference]);

/** The reference a /deposit reply gave. */
function referenceIn(text: string): string {
  const match = /Deposit request (DEP-[A-Z0-9]{8})/.exec(text);
  if (!match) throw new Error(`no reference in: ${text}`);
  return match[1]!;
}

/** The message with buttons the bot sent `admin` about a deposit, and its buttons by label. */
function noticeTo(calls: RecordedCall[], admin: FakeUser) {
  const sent = calls.filter(
    (call) =>
      ["sendMessage", "sendPhoto", "sendDocument"].includes(call.method) && Number(call.payload.chat_id) === admin.id,
  );
  expect(sent, JSON.stringify(calls)).toHaveLength(1);
  const [call] = sent as [RecordedCall];
  const buttons = new Map(buttonsOf(call));
  return {
    call,
    messageId: call.response.message_id as number,
    approve: buttons.get("✅ Approve deposit")!,
    reject: buttons.get("Reject…")!,
  };
}

describe("deposit requests in the bot", () => {
  it("before an owner sets payment methods, /deposit says so and opens nothing", async () => {
    expect(await bot.say(HOLDER, "/deposit 50")).toBe(
      "Deposits are not set up on this service yet: please ask the admins.",
    );
    expect(await sql(`SELECT id FROM deposit_requests`)).toEqual([]);
    await setDepositSettings(
      {
        methods: [
          { name: "Bank transfer", instructions: "IBAN DE00 1234 5678 9000 <Top-up Ltd>" },
          { name: "USDT (TRC20)", instructions: "TXYZ-address-for-tests" },
        ],
        validityMinutes: 60,
      },
      "test",
    );
  });

  it("/deposit answers the methods, a unique amount and a reference; the admins who may credit are told; /deposits lists it", async () => {
    const calls = await bot.fake.send(HOLDER, "/deposit 50");
    const reply = bot.replyText(calls, HOLDER);
    const reference = referenceIn(reply);
    expect(reply).toContain("Transfer exactly $50.01");
    expect(reply).toContain("Bank transfer\nIBAN DE00 1234 5678 9000 <Top-up Ltd>");
    expect(reply).toContain("USDT (TRC20)\nTXYZ-address-for-tests");
    const row = await depositOf(reference);
    expect(row).toMatchObject({ status: "pending", requested_cents: 5000, amount_cents: 5001, account_id: holderId });
    expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBe(60 * 60_000);
    // Operators get Approve / Reject; the viewer (who may not credit) is not told.
    for (const admin of [OPERATOR, SECOND_OPERATOR])
      expect(noticeTo(calls, admin).approve).toBe(`adm:dep:ok:${row.id}`);
    expect(calls.some((call) => Number(call.payload.chat_id) === VIEWER.id)).toBe(false);
    expect(await bot.say(HOLDER, "/deposits")).toContain(`${reference} · $50.01 · pending until`);
  });

  it("amounts are unique among open requests, also for requests made at the same moment", async () => {
    await bot.fake.deliver(...OTHERS.map((user) => bot.fake.message(user, "/deposit 50")));
    const amounts = (
      await sql(`SELECT amount_cents FROM deposit_requests WHERE status = 'pending' AND requested_cents = 5000`)
    ).map((row) => Number(row.amount_cents));
    expect(amounts).toHaveLength(1 + OTHERS.length);
    expect(new Set(amounts).size).toBe(amounts.length);
    // A few cents added: the same request of $50 becomes $50.01 ... $50.06.
    expect([...amounts].sort((a, b) => a - b)).toEqual([5001, 5002, 5003, 5004, 5005, 5006]);
    // A request closed just now keeps its amount from new requests while others are free.
    await sql(`UPDATE deposit_requests SET status = 'rejected', reject_reason = 'test' WHERE amount_cents = 5002`);
    const again = await bot.say(OTHERS[0]!, "/deposit 50");
    expect(again).toContain("Transfer exactly $50.07");
  });

  it("a photo proof reaches the request through the Bot API's files; the admins get the photo with the buttons", async () => {
    const reference = referenceIn(await bot.say(HOLDER, "/deposit 20"));
    const bytes = Buffer.from(`a receipt photo ${reference}`.repeat(50));
    const file = bot.fake.addFile(bytes, "receipt.jpg");
    const mark = bot.fake.calls.length;
    await bot.fake.deliver(bot.fake.photo(HOLDER, file.file_id, `paid ${reference}`));
    const calls = bot.fake.calls.slice(mark);
    expect(calls.map((call) => call.method)).toContain("getFile");
    expect(bot.replyText(calls, HOLDER)).toContain(`Proof received for ${reference}`);
    const row = await depositOf(reference);
    expect(row.proof_kind).toBe("photo");
    expect(Buffer.compare(row.proof_bytes, bytes)).toBe(0);
    expect(row.proof_text).toBe(`paid ${reference}`);
    const notice = noticeTo(calls, OPERATOR);
    expect(notice.call.method).toBe("sendPhoto");
    expect(notice.call.payload.photo).toBe(file.file_id);
    expect(plain(notice.call.payload.caption)).toContain(`Proof for ${reference}`);
    expect(notice.approve).toBe(`adm:dep:ok:${row.id}`);
  });

  it("a document or text proof too; with no open request a proof is refused", async () => {
    const reference = referenceIn(await bot.say(OTHERS[1]!, "/deposit 30"));
    const file = bot.fake.addFile(Buffer.from("%PDF-1.4 statement"), "statement.pdf");
    const mark = bot.fake.calls.length;
    await bot.fake.deliver(bot.fake.document(OTHERS[1]!, file.file_id, "statement.pdf", "application/pdf"));
    expect(bot.replyText(bot.fake.calls.slice(mark), OTHERS[1]!)).toContain(`Proof received for ${reference}`);
    expect(await depositOf(reference)).toMatchObject({
      proof_kind: "document",
      proof_file_name: "statement.pdf",
      proof_mime: "application/pdf",
    });
    expect(await bot.say(OTHERS[1]!, `/proof sent from Acme Bank, ref 7781 ${reference}`)).toContain("Proof received");
    expect(await depositOf(reference)).toMatchObject({
      proof_kind: "text",
      proof_text: `sent from Acme Bank, ref 7781 ${reference}`,
    });
    const stranger: FakeUser = { id: 4_900_000_050, first_name: "New" };
    await bot.fake.send(stranger, "/start");
    expect(await bot.say(stranger, "/proof paid")).toBe(
      "You have no open deposit request to attach this to: send /deposit and the amount first (e.g. /deposit 50).",
    );
  });

  it("two admins pressing Approve at once: one credit, the other reads the decision; the holder is told once", async () => {
    const calls = await bot.fake.send(HOLDER, "/deposit 75");
    const reference = referenceIn(bot.replyText(calls, HOLDER));
    const [one, other] = [noticeTo(calls, OPERATOR), noticeTo(calls, SECOND_OPERATOR)];
    // A viewer pressing it (the data is not secret) is refused before anything runs.
    const refused = await bot.fake.press(VIEWER, one.approve, one.messageId);
    expect(refused.map((call) => call.method)).toEqual(["answerCallbackQuery"]);
    const before = await balance();
    const entries = Number((await sqlRow(`SELECT count(*) AS n FROM ledger_entries`)).n);
    const mark = bot.fake.calls.length;
    await bot.fake.deliver(
      bot.fake.callback(OPERATOR, one.approve, one.messageId),
      bot.fake.callback(SECOND_OPERATOR, other.approve, other.messageId),
    );
    const answers = bot.fake.calls
      .slice(mark)
      .filter((call) => call.method === "answerCallbackQuery")
      .map((call) => call.payload.text as string);
    const row = await depositOf(reference);
    expect(answers.sort()).toEqual(
      ["Approved and credited", `Deposit ${reference} was already approved (by ${row.resolved_by}).`].sort(),
    );
    expect(row.status).toBe("approved");
    expect(await balance()).toBe(before + 7501);
    expect(Number((await sqlRow(`SELECT count(*) AS n FROM ledger_entries`)).n)).toBe(entries + 1);
    const credit = await sql(
      `SELECT actor, details FROM audit_log WHERE action = 'wallet.credit' AND details->>'reference' = $1`,
      [reference],
    );
    expect(credit).toEqual([
      { actor: row.resolved_by, details: expect.objectContaining({ depositId: row.id, amountCents: 7501 }) },
    ]);
    await notices.allSent();
    expect(toldHolder(reference)).toEqual([
      `💰 Your deposit ${reference} was approved: $75.01 credited. Balance: $${((before + 7501) / 100).toFixed(2)}.`,
    ]);
    await expectBooksBalance();
  });

  it("a rejection asks for the reason and tells the holder why; nothing is credited", async () => {
    const calls = await bot.fake.send(HOLDER, "/deposit 40");
    const reference = referenceIn(bot.replyText(calls, HOLDER));
    const notice = noticeTo(calls, OPERATOR);
    const before = await balance();
    const asked = await bot.fake.press(OPERATOR, notice.reject, notice.messageId);
    const reasons = buttonsOf(asked.find((call) => call.method === "editMessageReplyMarkup"));
    expect(reasons[0]).toEqual([
      "Reject: no transfer of this amount has arrived",
      `adm:dep:why:${(await depositOf(reference)).id}:0`,
    ]);
    const rejected = await bot.fake.press(OPERATOR, reasons[0]![1], notice.messageId);
    expect(rejected.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe("Rejected");
    const late = await bot.fake.press(SECOND_OPERATOR, noticeTo(calls, SECOND_OPERATOR).approve, notice.messageId);
    expect(late.find((call) => call.method === "answerCallbackQuery")?.payload.text).toContain("was already rejected");
    expect(await balance()).toBe(before);
    expect(await depositOf(reference)).toMatchObject({
      status: "rejected",
      reject_reason: "no transfer of this amount has arrived",
    });
    await notices.allSent();
    expect(notices.textsTo(HOLDER.id)).toContain(
      `❌ Your deposit ${reference} ($40.01) was rejected: no transfer of this amount has arrived. Nothing was credited.`,
    );
    expect(await bot.say(HOLDER, "/deposits")).toContain(
      `${reference} · $40.01 · rejected: no transfer of this amount has arrived`,
    );
  });

  it("a request past its time closes by itself; the holder is told; Approve then credits nothing", async () => {
    const calls = await bot.fake.send(HOLDER, "/deposit 60");
    const reference = referenceIn(bot.replyText(calls, HOLDER));
    const notice = noticeTo(calls, OPERATOR);
    const before = await balance();
    // As if its hour had passed: the worker's periodic look closes it.
    await sql(`UPDATE deposit_requests SET expires_at = now() - interval '1 second' WHERE reference = $1`, [reference]);
    await expect
      .poll(async () => (await depositOf(reference)).status, { timeout: 30_000, interval: 200 })
      .toBe("expired");
    await notices.allSent();
    expect(toldHolder(reference)).toEqual([
      `⌛ Your deposit request ${reference} ($60.01) expired: nothing was credited. If you have paid, send /deposit again and the proof, or write to us.`,
    ]);
    const late = await bot.fake.press(OPERATOR, notice.approve, notice.messageId);
    expect(late.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe(
      `Deposit ${reference} was already expired (by system).`,
    );
    expect(await balance()).toBe(before);
    expect(
      await sql(`SELECT actor FROM audit_log WHERE action = 'deposit.expired' AND details->>'reference' = $1`, [
        reference,
      ]),
    ).toEqual([{ actor: "system" }]);
  });

  it("above the large-credit amount two different admins approve (four eyes)", async () => {
    await setLargeCreditThreshold(10_000, "test");
    try {
      const calls = await bot.fake.send(HOLDER, "/deposit 150");
      const reference = referenceIn(bot.replyText(calls, HOLDER));
      const [one, other] = [noticeTo(calls, OPERATOR), noticeTo(calls, SECOND_OPERATOR)];
      const before = await balance();
      const first = await bot.fake.press(OPERATOR, one.approve, one.messageId);
      expect(first.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe(
        "First approval recorded: above $100.00 a second admin must approve.",
      );
      const again = await bot.fake.press(OPERATOR, one.approve, one.messageId);
      expect(again.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe(
        "You gave the first approval: a second admin must approve.",
      );
      expect(await balance()).toBe(before);
      const second = await bot.fake.press(SECOND_OPERATOR, other.approve, other.messageId);
      expect(second.find((call) => call.method === "answerCallbackQuery")?.payload.text).toBe("Approved and credited");
      expect(await balance()).toBe(before + 15_001);
      expect(await depositOf(reference)).toMatchObject({
        status: "approved",
        first_approved_by: `telegram:${OPERATOR.id}`,
        resolved_by: `telegram:${SECOND_OPERATOR.id}`,
      });
      await expectBooksBalance();
    } finally {
      await setLargeCreditThreshold(100_000, "test");
    }
  });
});
