// Amounts are parsed strictly (parseUsd: positive, at most two decimals, a sane maximum, integer
// cents without floats), and a bad amount in /credit or /debit gets a usage reply and changes nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { formatUsd, MAX_ADJUSTMENT_CENTS, parseUsd } from "@/lib/money/parse-usd";
import { useBotHarness } from "../helpers/bot-harness";
import { sql } from "../helpers/db";
import { plain, type FakeUser } from "../helpers/fake-telegram";

describe("parseUsd", () => {
  it.each([
    ["1", 100],
    ["0.01", 1],
    ["0.5", 50],
    ["19.99", 1999],
    ["25.50", 2550],
    ["  7.10 ", 710],
    ["100000", 10_000_000],
    ["100000.00", 10_000_000],
    // Values whose float product is not an integer (0.29 * 100 = 28.999999999999996).
    ["0.29", 29],
    ["1.13", 113],
    ["4.35", 435],
  ])("accepts %j as %i cents", (input, cents) => {
    expect(parseUsd(input)).toEqual({ ok: true, cents });
  });

  it.each([
    "",
    "0",
    "0.00",
    "-5",
    "+5",
    "1.234",
    "1.",
    ".5",
    "1e3",
    "1,000",
    "$5",
    "5 USD",
    "0x10",
    "007",
    "NaN",
    "Infinity",
    "1_000",
    "１２",
    "100000.01",
    "999999999",
  ])("refuses %j", (input) => {
    const result = parseUsd(input);
    expect(result.ok).toBe(false);
  });

  it("explains the maximum", () => {
    expect(parseUsd("100000.01")).toEqual({
      ok: false,
      error: `Amount must be at most ${formatUsd(MAX_ADJUSTMENT_CENTS)}`,
    });
    expect(formatUsd(MAX_ADJUSTMENT_CENTS)).toBe("$100,000.00");
  });

  it("formats cents without floats", () => {
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(5)).toBe("$0.05");
    expect(formatUsd(123456789)).toBe("$1,234,567.89");
    expect(formatUsd(-250)).toBe("-$2.50");
  });
});

describe("bad arguments in the bot", () => {
  const ADMIN: FakeUser = { id: 4_600_000_001, first_name: "Ada", username: "ada_admin" };
  const HOLDER: FakeUser = { id: 4_600_000_002, first_name: "Hal", username: "hal_shop" };
  // A second admin: the largest credit is above the amount that needs one to approve it.
  const SECOND: FakeUser = { id: 4_600_000_003, first_name: "Sam" };
  const bot = useBotHarness({ admins: [ADMIN, SECOND] });

  beforeAll(async () => {
    await bot.fake.send(HOLDER, "/start");
  });

  it("get the usage, say what is wrong, and create no request", async () => {
    const cases: Array<[string, string]> = [
      ["/credit", "Usage: /credit <account> <amountUsd> [note]"],
      ["/credit @hal_shop", "Usage: /credit <account> <amountUsd> [note]"],
      [
        "/credit @hal_shop abc",
        "Amount must be a positive number of dollars with at most two decimals, e.g. 25 or 19.99.\nUsage: /credit",
      ],
      ["/credit @hal_shop -5", "Amount must be a positive number of dollars"],
      ["/credit @hal_shop 1.234", "Amount must be a positive number of dollars"],
      ["/credit @hal_shop 0", "Amount must be greater than zero."],
      ["/credit @hal_shop 1e3", "Amount must be a positive number of dollars"],
      ["/credit @hal_shop 100000.01", "Amount must be at most $100,000.00."],
      ["/debit @hal_shop 5", "A debit needs a reason."],
      ["/debit @hal_shop five dollars", "Amount must be a positive number of dollars"],
      [`/credit @hal_shop 5 ${"x".repeat(201)}`, "The note is too long (at most 200 characters)."],
    ];
    for (const [command, expected] of cases) {
      const calls = await bot.fake.send(ADMIN, command);
      expect(calls, command).toHaveLength(1);
      expect(plain(calls[0]!.payload.text), command).toContain(expected);
      expect(calls[0]!.payload.reply_markup, command).toBeUndefined();
    }
    expect(await sql(`SELECT count(*)::int AS n FROM admin_action_requests`)).toEqual([{ n: 0 }]);
    expect(await sql(`SELECT count(*)::int AS n FROM ledger_entries`)).toEqual([{ n: 0 }]);
  });

  it("a valid amount right at the maximum is accepted", async () => {
    const calls = await bot.fake.send(ADMIN, "/credit @hal_shop 100000");
    const reply = plain(bot.messageTo(calls, ADMIN).payload.text);
    expect(reply).toContain("Credit $100,000.00 to account");
    expect(reply).toContain("a second admin must approve it");
    expect(await sql(`SELECT amount_cents, status FROM admin_action_requests`)).toEqual([
      { amount_cents: 10_000_000, status: "pending" },
    ]);
  });
});
