// GET /ledger?format=csv&from=&to=: a period's statement over real HTTP and PostgreSQL. Its rows
// sum from the opening to the closing balance, which the test recomputes from the ledger itself;
// the range is half-open; another account's entries never appear; text cannot become a formula;
// bad ranges are refused; and the JSON pages are what they were.
import { beforeAll, describe, expect, it } from "vitest";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { postLedgerEntry } from "@/lib/wallet/sql/post-ledger-entry";
import { getPool } from "@/lib/db/pool";
import { suiteBaseUrl } from "../helpers/suite";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance } from "../helpers/orders";
import { insertLedgerHistory, parseStatementCsv } from "../helpers/ledger-history";
import { useCleanDatabase } from "../helpers/clean-database";

const HEADER = "id,type,amount_usd,balance_after_usd,order_id,reason,created_at";
// 2,600 entries an hour apart from 1 January 2026: February holds 672 of them, with entries before
// and after, and a year's statement needs three keyset batches.
const HISTORY = { start: new Date("2026-01-01T00:00:00Z"), stepSeconds: 3600, count: 2600 };

let main: Awaited<ReturnType<typeof createAccount>>;
let other: Awaited<ReturnType<typeof createAccount>>;

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  main = await createAccount();
  other = await createAccount();
  await insertLedgerHistory(main.accountId, HISTORY);
  // The other account's entries fall in the same hours, half an hour later.
  await insertLedgerHistory(other.accountId, { ...HISTORY, start: new Date("2026-01-01T00:30:00Z"), reasonPadding: 3 });
  await sql(`UPDATE ledger_entries SET reason = 'OTHER ACCOUNT ' || id WHERE account_id = $1`, [other.accountId]);
}, 60_000);

/** The balance at `at` and the entries of [from, to), straight from the ledger. */
async function ledgerTruth(accountId: number, from: string, to: string) {
  const row = await sqlRow<{ opening: number; closing: number; entries: number }>(
    `SELECT coalesce(sum(amount_cents) FILTER (WHERE created_at < $2::timestamptz), 0)::bigint AS opening,
            coalesce(sum(amount_cents) FILTER (WHERE created_at < $3::timestamptz), 0)::bigint AS closing,
            count(*) FILTER (WHERE created_at >= $2::timestamptz AND created_at < $3::timestamptz)::int AS entries
       FROM ledger_entries WHERE account_id = $1`,
    [accountId, from, to],
  );
  return row;
}

describe("GET /ledger?format=csv&from=&to=", () => {
  it("streams every entry of the range, oldest first, summing from the opening to the closing balance", async () => {
    const res = await api("/ledger?format=csv&from=2026-02-01&to=2026-03-01", { key: main.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="ledger-2026-02-01-to-2026-03-01.csv"');
    const statement = parseStatementCsv(res.text);
    expect(statement.header).toBe(HEADER);
    expect(statement.opening.at).toBe("2026-02-01T00:00:00.000Z");
    expect(statement.closing.at).toBe("2026-03-01T00:00:00.000Z");

    const truth = await ledgerTruth(main.accountId, "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z");
    expect(truth.entries).toBe(28 * 24);
    expect(truth.opening).toBeGreaterThan(0);
    expect(statement.entries).toHaveLength(truth.entries);
    expect(statement.opening.cents).toBe(truth.opening);
    expect(statement.closing.cents).toBe(truth.closing);
    const sum = statement.entries.reduce((total, e) => total + e.amountCents, 0);
    expect(statement.opening.cents + sum).toBe(statement.closing.cents);

    // Half-open: the entry at exactly 1 February 00:00 is in, the one at 1 March 00:00 is not.
    expect(statement.entries[0]!.createdAt).toBe("2026-02-01T00:00:00.000Z");
    expect(statement.entries.at(-1)!.createdAt).toBe("2026-02-28T23:00:00.000Z");
    // Oldest first, each balance_after the running balance from the opening one.
    let balance = statement.opening.cents;
    for (let i = 0; i < statement.entries.length; i++) {
      const entry = statement.entries[i]!;
      if (i > 0) expect(entry.id).toBeGreaterThan(statement.entries[i - 1]!.id);
      balance += entry.amountCents;
      expect(entry.balanceAfterCents).toBe(balance);
      expect(entry.reason).toMatch(/^history \d+$/);
    }
  });

  it("reads a bare date as 00:00 UTC and an instant with its offset, and chains months without gap or overlap", async () => {
    const byDate = await api("/ledger?format=csv&from=2026-02-01&to=2026-03-01", { key: main.key });
    const byInstant = await api(
      `/ledger?format=csv&from=${encodeURIComponent("2026-02-01T07:00:00+07:00")}&to=2026-03-01T00:00:00.000Z`,
      { key: main.key },
    );
    expect(byInstant.status).toBe(200);
    expect(byInstant.text).toBe(byDate.text);

    const january = parseStatementCsv(
      (await api("/ledger?format=csv&from=2026-01-01&to=2026-02-01", { key: main.key })).text,
    );
    const february = parseStatementCsv(byDate.text);
    expect(january.opening.cents).toBe(0);
    expect(january.closing.cents).toBe(february.opening.cents);
    expect(january.entries.at(-1)!.id + 1).toBe(february.entries[0]!.id);
  });

  it("covers a year in one download (several keyset batches) ending at the wallet balance", async () => {
    const res = await api("/ledger?format=csv&from=2026-01-01&to=2027-01-01", { key: main.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="ledger-2026-01-01-to-2027-01-01.csv"');
    const statement = parseStatementCsv(res.text);
    expect(statement.entries).toHaveLength(HISTORY.count);
    expect(new Set(statement.entries.map((e) => e.id)).size).toBe(HISTORY.count);
    expect(statement.opening.cents).toBe(0);
    const balance = await api("/balance", { key: main.key });
    const { balance_cents } = await sqlRow<{ balance_cents: number }>(
      `SELECT balance_cents FROM accounts WHERE id = $1`,
      [main.accountId],
    );
    expect(statement.closing.cents).toBe(balance_cents);
    expect(balance.status).toBe(200);
    expect(statement.entries.reduce((total, e) => total + e.amountCents, 0)).toBe(balance_cents);
  });

  it("answers an empty range as an opening and a closing line of the same balance", async () => {
    const before = parseStatementCsv(
      (await api("/ledger?format=csv&from=2025-06-01&to=2025-07-01", { key: main.key })).text,
    );
    expect(before).toMatchObject({ opening: { cents: 0 }, closing: { cents: 0 }, entries: [] });
    const after = await api("/ledger?format=csv&from=2027-01-01T00:00:00Z&to=2027-01-01T00:00:01Z", { key: main.key });
    expect(after.headers.get("content-disposition")).toBe(
      'attachment; filename="ledger-2027-01-01-to-2027-01-01T000001Z.csv"',
    );
    const lines = after.text.split("\r\n");
    expect(lines).toHaveLength(4);
    const statement = parseStatementCsv(after.text);
    expect(statement.entries).toEqual([]);
    expect(statement.opening.cents).toBe(statement.closing.cents);
    expect(statement.closing.cents).toBe((await ledgerTruth(main.accountId, "2030-01-01", "2030-01-02")).opening);
  });

  it("shows only the caller's own entries", async () => {
    const mine = await api("/ledger?format=csv&from=2026-01-01&to=2027-01-01", { key: main.key });
    const theirs = await api("/ledger?format=csv&from=2026-01-01&to=2027-01-01", { key: other.key });
    expect(mine.text).not.toContain("OTHER ACCOUNT");
    // A statement's ids are the entries' numbers within their own account (account_seq).
    const numbersOf = async (accountId: number) =>
      (
        await sql<{ n: number }>(`SELECT account_seq AS n FROM ledger_entries WHERE account_id = $1 ORDER BY 1`, [
          accountId,
        ])
      ).map((r) => r.n);
    const myStatement = parseStatementCsv(mine.text);
    expect(myStatement.entries.map((e) => e.id)).toEqual(await numbersOf(main.accountId));
    const theirStatement = parseStatementCsv(theirs.text);
    expect(theirStatement.entries).toHaveLength(HISTORY.count);
    expect(theirStatement.entries.map((e) => e.id)).toEqual(await numbersOf(other.accountId));
    expect(theirStatement.entries.every((e) => e.reason.startsWith("OTHER ACCOUNT"))).toBe(true);
  });

  it("neutralises formula text in a statement like in every CSV", async () => {
    const account = await createAccount();
    await creditWallet({
      accountId: account.accountId,
      amountCents: 500,
      actor: "telegram:1",
      reason: '=HYPERLINK("http://evil.example","pay")',
    });
    await creditWallet({
      accountId: account.accountId,
      amountCents: 100,
      actor: "telegram:1",
      reason: "-2+3+cmd|' /C calc'!A0",
    });
    const from = new Date(Date.now() - 3600_000).toISOString();
    const to = new Date(Date.now() + 3600_000).toISOString();
    const res = await api(`/ledger?format=csv&from=${from}&to=${to}`, { key: account.key });
    expect(res.status).toBe(200);
    const lines = res.text.trim().split("\r\n");
    expect(lines).toHaveLength(5);
    expect(lines[1]).toBe(`"","opening_balance","","0.00","","","${from}"`);
    expect(lines[2]).toContain(`"credit","5.00","5.00","","'=HYPERLINK(""http://evil.example"",""pay"")"`);
    expect(lines[3]).toContain(`"credit","1.00","6.00","","'-2+3+cmd|' /C calc'!A0"`);
    expect(lines[4]).toBe(`"","closing_balance","","6.00","","","${to}"`);
    for (const line of lines.slice(1)) {
      for (const cell of line.match(/"(?:[^"]|"")*"/g)!)
        expect(cell, line).toMatch(/^"(?:$|"|[0-9A-Za-z'"]|-\d+\.\d\d")/);
    }
  });

  it("refuses a bad range with INVALID REQUEST and says which parameter", async () => {
    const cases: [string, string, RegExp][] = [
      ["format=csv&from=2026-02-01", "to", /both from and to/],
      ["format=csv&to=2026-02-01", "from", /both from and to/],
      ["format=csv&from=2026-03-01&to=2026-02-01", "to", /after from/],
      ["format=csv&from=2026-03-01&to=2026-03-01", "to", /after from/],
      ["format=csv&from=2026-01-01&to=2027-01-03", "to", /at most 366 days/],
      ["format=csv&from=2026-13-01&to=2027-01-03", "from", /ISO-8601/],
      ["format=csv&from=yesterday&to=2027-01-03", "from", /ISO-8601/],
      ["format=csv&from=2026-02-01T00:00:00&to=2026-03-01", "from", /ISO-8601/],
      ["from=2026-02-01&to=2026-03-01", "format", /add format=csv/],
      ["format=json&from=2026-02-01&to=2026-03-01", "format", /add format=csv/],
      ["format=csv&from=2026-02-01&to=2026-03-01&page=2", "page", /not paged/],
    ];
    for (const [query, field, message] of cases) {
      const res = await api(`/ledger?${query}`, { key: main.key });
      expect(res.status, query).toBe(400);
      expect(res.json, query).toMatchObject({ success: false, error: "INVALID REQUEST", code: "INVALID_REQUEST" });
      expect(res.json.details, query).toEqual(
        expect.arrayContaining([expect.objectContaining({ field, message: expect.stringMatching(message) })]),
      );
    }
    // A 366-day range (2028 is a leap year) is accepted.
    expect((await api("/ledger?format=csv&from=2028-01-01&to=2029-01-01", { key: main.key })).status).toBe(200);
  });

  it("needs a key like any /ledger call", async () => {
    const res = await fetch(`${suiteBaseUrl()}/ledger?format=csv&from=2026-02-01&to=2026-03-01`);
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain("opening_balance");
  });

  it("gives its database connection back when a download is abandoned or only its headers are asked for", async () => {
    for (let i = 0; i < 4; i++) {
      const controller = new AbortController();
      const res = await fetch(`${suiteBaseUrl()}/ledger?format=csv&from=2026-01-01&to=2027-01-01`, {
        headers: { "x-api-key": main.key },
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      expect((await reader.read()).done).toBe(false);
      controller.abort();
      await reader.closed.catch(() => undefined);
      const head = await fetch(`${suiteBaseUrl()}/ledger?format=csv&from=2026-01-01&to=2027-01-01`, {
        method: "HEAD",
        headers: { "x-api-key": main.key },
      });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    }
    // Had any of those kept its slot, the statement slots (a quarter of PG_POOL_MAX) would be gone.
    const res = await api("/ledger?format=csv&from=2026-02-01&to=2026-03-01", { key: main.key });
    expect(res.status).toBe(200);
    expect(parseStatementCsv(res.text).entries).toHaveLength(28 * 24);
  });
});

describe("the OpenAPI document", () => {
  it("documents the statement: from, to, the text/csv answer and its 503", async () => {
    const document = (await api("/openapi.json")).json;
    const operation = document.paths["/ledger"].get;
    const parameters = Object.fromEntries(
      operation.parameters.map((p: { name: string; in: string; description: string }) => [p.name, p]),
    );
    expect(parameters.from).toMatchObject({ in: "query", description: expect.stringContaining("inclusive") });
    expect(parameters.to).toMatchObject({ in: "query", description: expect.stringContaining("exclusive") });
    const content = operation.responses["200"].content;
    expect(Object.keys(content).sort()).toEqual(["application/json", "text/csv"]);
    expect(content["text/csv"].schema).toMatchObject({
      type: "string",
      description: expect.stringContaining("closing_balance"),
    });
    expect(operation.responses["200"].headers["Content-Disposition"]).toBeDefined();
    expect(operation["x-error-codes"]).toEqual(expect.arrayContaining(["INVALID_REQUEST", "SERVICE_UNAVAILABLE"]));
  });
});

describe("postings that race for the wallet", () => {
  // A posting is dated by its transaction's start, but one that began before another and reached
  // the wallet's row after it must not be dated before it: the statement reads the balance at a
  // time from the last entry dated before it, and the range as one run of entries.
  it("are dated in the order they reached the wallet, so a statement that starts between them adds up", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const late = await getPool().connect();
    let began: Date;
    try {
      await late.query("BEGIN");
      began = (await late.query<{ began: Date }>("SELECT now() AS began")).rows[0]!.began;
      // Dates are kept to the millisecond: let the clock move well past the late one's start.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await creditWallet({
        accountId: account.accountId,
        amountCents: 300,
        actor: "test",
        reason: "reached the wallet first",
      });
      await postLedgerEntry(late, {
        accountId: account.accountId,
        kind: "adjustment",
        amountCents: -200,
        actor: "test",
        reason: "began first",
      });
      await late.query("COMMIT");
    } finally {
      late.release();
    }
    const rows = await sql<{ reason: string; created_at: Date }>(
      `SELECT reason, created_at FROM ledger_entries WHERE account_id = $1 ORDER BY account_seq`,
      [account.accountId],
    );
    expect(rows.map((row) => row.reason)).toEqual(["test funding", "reached the wallet first", "began first"]);
    expect(rows[1]!.created_at.getTime()).toBeGreaterThan(began.getTime());
    expect(rows[2]!.created_at.getTime()).toBe(rows[1]!.created_at.getTime());

    const from = rows[1]!.created_at;
    const to = new Date(from.getTime() + 86_400_000);
    const res = await api(
      `/ledger?format=csv&from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`,
      { key: account.key },
    );
    expect(res.status).toBe(200);
    const statement = parseStatementCsv(res.text);
    expect(statement.opening.cents).toBe(10_000);
    expect(statement.entries.map((entry) => [entry.reason, entry.amountCents])).toEqual([
      ["reached the wallet first", 300],
      ["began first", -200],
    ]);
    expect(statement.closing.cents).toBe(10_100);
    expect(await ledgerTruth(account.accountId, from.toISOString(), to.toISOString())).toEqual({
      opening: 10_000,
      closing: 10_100,
      entries: 2,
    });
    await expectBooksBalance();
  });
});

describe("GET /ledger JSON pages and the page CSV", () => {
  it("are as before: newest first, paged, with totals", async () => {
    const page = await api("/ledger?page=2&pageSize=50", { key: main.key });
    expect(page.status).toBe(200);
    expect(page.json).toMatchObject({ success: true, page: 2, pageSize: 50, total: HISTORY.count, hasMore: true });
    expect(page.json.entries).toHaveLength(50);
    const ids = page.json.entries.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    expect(Object.keys(page.json.entries[0]).sort()).toEqual([
      "amountUsd",
      "balanceAfterUsd",
      "createdAt",
      "id",
      "livemode",
      "orderId",
      "reason",
      "type",
    ]);
    const csv = await api("/ledger?format=csv", { key: main.key });
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="ledger-page-1.csv"');
    const lines = csv.text.trim().split("\r\n");
    expect(lines[0]).toBe(HEADER);
    expect(lines).toHaveLength(51);
    await expectBooksBalance();
  });
});
