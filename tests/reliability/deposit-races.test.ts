// Deposit approvals racing each other through the lib functions the bot's Approve, the dashboard's
// queue and the statement import call: two approvals and a rejection at once, an approval racing the
// worker's expiry look, a statement import racing button approvals, and requests opened at the same
// moment. Each request is decided once and credited at most once; the books balance after each.
import { beforeAll, describe, expect, it } from "vitest";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { setDepositSettings } from "@/lib/deposits/deposit-settings";
import { openDepositRequest } from "@/lib/deposits/open-deposit-request";
import { approveDeposit, rejectDeposit, type DepositDecider } from "@/lib/deposits/decide-deposit";
import { expireDepositRequests } from "@/lib/deposits/expire-deposit-requests";
import { approveStatementMatches, previewBankStatement } from "@/lib/deposits/import-bank-statement";
import { useCleanDatabase } from "../helpers/clean-database";
import { createAccount } from "../helpers/fixtures";
import { sql } from "../helpers/db";
import { expectBooksBalance } from "../helpers/orders";

useCleanDatabase({ catalog: false, checkBooks: true });

let bot: DepositDecider;
let dashboard: DepositDecider;
let third: DepositDecider;

beforeAll(async () => {
  const deciders: DepositDecider[] = [];
  for (const [email, actor] of [
    ["bot-admin@example.test", "telegram:777001"],
    ["dash-admin@example.test", "admin:dash-admin@example.test"],
    ["third-admin@example.test", "admin:third-admin@example.test"],
  ] as const) {
    const created = await createAdminUser({
      email,
      password: "a long enough password",
      role: "operator",
      actor: "test",
    });
    if (created.status !== "created") throw new Error(created.status);
    deciders.push({ adminUserId: created.admin.id, actor });
  }
  [bot, dashboard, third] = deciders as [DepositDecider, DepositDecider, DepositDecider];
  await setDepositSettings({ methods: [{ name: "Bank", instructions: "IBAN X" }], validityMinutes: 60 }, "test");
});

/** `count` open requests of `usd` dollars spread over fresh accounts (at most 3 open each). */
async function openRequests(count: number, cents: number) {
  const ids: number[] = [];
  for (let n = 0; n < count; n += 3) {
    const { accountId } = await createAccount({ key: false });
    for (let k = n; k < Math.min(count, n + 3); k++) {
      const opened = await openDepositRequest({ accountId, requestedCents: cents, actor: "test" });
      if (opened.status !== "opened") throw new Error(opened.status);
      ids.push(opened.deposit.id);
    }
  }
  return ids;
}

/** Per request: its state, its ledger entries and the credits the audit log has for it. */
async function outcomes(ids: number[]) {
  return sql(
    `SELECT d.id, d.status, d.amount_cents,
            (SELECT count(*)::int FROM ledger_entries l WHERE l.id = d.ledger_entry_id) AS linked,
            (SELECT count(*)::int FROM audit_log a WHERE a.action = 'wallet.credit' AND (a.details->>'depositId')::int = d.id) AS credits,
            (SELECT COALESCE(sum(l.amount_cents), 0)::int FROM ledger_entries l WHERE l.account_id = d.account_id) AS account_total
       FROM deposit_requests d WHERE d.id = ANY($1::int[]) ORDER BY d.id`,
    [ids],
  );
}

describe("deposit approvals under concurrency", () => {
  it("a bot approval, a dashboard approval and a rejection at once: one decision each, one credit per approved request", async () => {
    const ids = await openRequests(24, 2_000);
    const results = await Promise.all(
      ids.map((id, n) =>
        Promise.all(
          // Both orders of arrival.
          n % 2 === 0
            ? [approveDeposit(id, bot), approveDeposit(id, dashboard), rejectDeposit(id, third, "no transfer")]
            : [rejectDeposit(id, third, "no transfer"), approveDeposit(id, dashboard), approveDeposit(id, bot)],
        ),
      ),
    );
    for (const outcome of results) {
      const decided = outcome.filter((result) => result.status === "approved" || result.status === "rejected");
      expect(decided).toHaveLength(1);
      expect(outcome.filter((result) => result.status === "already_resolved")).toHaveLength(2);
    }
    for (const row of await outcomes(ids)) {
      expect(row.credits).toBe(row.status === "approved" ? 1 : 0);
      expect(row.linked).toBe(row.status === "approved" ? 1 : 0);
    }
    // The money that moved is exactly the approved requests'.
    const approved = (await outcomes(ids)).filter((row) => row.status === "approved");
    const credited = await sql(
      `SELECT COALESCE(sum(amount_cents), 0)::int AS total FROM ledger_entries WHERE reason LIKE 'deposit DEP-%'`,
    );
    expect(credited[0]!.total).toBe(approved.reduce((sum, row) => sum + Number(row.amount_cents), 0));
    await expectBooksBalance();
  });

  it("an approval racing the expiry look: past its time, every request ends expired, none credited, each expired once", async () => {
    const ids = await openRequests(12, 3_000);
    await sql(`UPDATE deposit_requests SET expires_at = now() - interval '1 second' WHERE id = ANY($1::int[])`, [ids]);
    const [, ...approvals] = await Promise.all([expireDepositRequests(), ...ids.map((id) => approveDeposit(id, bot))]);
    for (const approval of approvals) expect(["expired", "already_resolved"]).toContain(approval.status);
    for (const row of await outcomes(ids)) expect(row).toMatchObject({ status: "expired", credits: 0, linked: 0 });
    const expiredAudits = await sql(
      `SELECT (details->>'reference') AS reference, count(*)::int AS n FROM audit_log
        WHERE action = 'deposit.expired' GROUP BY 1`,
    );
    expect(expiredAudits).toHaveLength(ids.length);
    for (const audit of expiredAudits) expect(audit.n).toBe(1);
  });

  it("a statement import racing button approvals credits each matched request once", async () => {
    const ids = await openRequests(9, 4_000);
    const rows = await sql(`SELECT amount_cents FROM deposit_requests WHERE id = ANY($1::int[]) ORDER BY id`, [ids]);
    const today = new Date().toISOString().slice(0, 10);
    const csv = [
      "date,amount,description",
      ...rows.map((row) => `${today},${(Number(row.amount_cents) / 100).toFixed(2)},transfer`),
    ].join("\n");
    const preview = await previewBankStatement(csv);
    if ("error" in preview) throw new Error(preview.error);
    expect(preview.matches.map((match) => match.depositId).sort((a, b) => a - b)).toEqual(ids);
    const [imported, ...buttons] = await Promise.all([
      approveStatementMatches({ csv, digest: preview.digest, by: dashboard }),
      ...ids.map((id) => approveDeposit(id, bot)),
    ]);
    const byButton = buttons.filter((result) => result.status === "approved").length;
    expect(imported).toMatchObject({ status: "done", approved: ids.length - byButton, skipped: byButton });
    for (const row of await outcomes(ids)) expect(row).toMatchObject({ status: "approved", credits: 1, linked: 1 });
    // The same file again: every row says it was credited, nothing is approved.
    const again = await previewBankStatement(csv);
    if ("error" in again) throw new Error(again.error);
    expect(again.matches).toEqual([]);
    await expectBooksBalance();
  });

  it("requests opened at the same moment get different amounts", async () => {
    const accounts = await Promise.all(Array.from({ length: 10 }, () => createAccount({ key: false })));
    const opened = await Promise.all(
      accounts.flatMap(({ accountId }) =>
        [1, 2, 3].map(() => openDepositRequest({ accountId, requestedCents: 10_000, actor: "test" })),
      ),
    );
    const amounts = opened.map((result) => (result.status === "opened" ? result.deposit.amountCents : result.status));
    expect(new Set(amounts).size).toBe(30);
    for (const amount of amounts) expect(amount).toEqual(expect.any(Number));
    expect(Math.min(...(amounts as number[]))).toBe(10_001);
    expect(Math.max(...(amounts as number[]))).toBe(10_030);
  });
});
