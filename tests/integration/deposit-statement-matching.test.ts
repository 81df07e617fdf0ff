// A bank statement's rows against deposit requests whose amounts were issued twice. A new request
// gets an amount no request had for two days while one of its 99 is left; failing that, one a
// closed request had. A row naming no reference may then be the closed request's transfer (approved
// on the queue before the import, or paid after the request expired): it is left for an admin,
// never credited to the open request that now has the amount. A row naming its reference, or of an
// amount no other request had near its time, is matched.
import { beforeAll, describe, expect, it } from "vitest";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { setDepositSettings } from "@/lib/deposits/deposit-settings";
import { openDepositRequest } from "@/lib/deposits/open-deposit-request";
import { approveDeposit, type DepositDecider } from "@/lib/deposits/decide-deposit";
import { expireDepositRequests } from "@/lib/deposits/expire-deposit-requests";
import { approveStatementMatches, previewBankStatement } from "@/lib/deposits/import-bank-statement";
import { useCleanDatabase } from "../helpers/clean-database";
import { createAccount } from "../helpers/fixtures";
import { sql } from "../helpers/db";

useCleanDatabase({ catalog: false, checkBooks: true });

let admin: DepositDecider;

beforeAll(async () => {
  const created = await createAdminUser({
    email: "statement-admin@example.test",
    password: "a long enough password",
    role: "operator",
    actor: "test",
  });
  if (created.status !== "created") throw new Error(created.status);
  admin = { adminUserId: created.admin.id, actor: "admin:statement-admin@example.test" };
  await setDepositSettings({ methods: [{ name: "Bank", instructions: "IBAN X" }], validityMinutes: 60 }, "test");
});

async function open(requestedCents: number) {
  const { accountId } = await createAccount({ key: false });
  const opened = await openDepositRequest({ accountId, requestedCents, actor: "test" });
  if (opened.status !== "opened") throw new Error(opened.status);
  return opened.deposit;
}

async function balanceOf(accountId: number): Promise<number> {
  const [row] = await sql(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId]);
  return Number(row!.balance_cents);
}

/** Closes every amount from `cents` + 1 to `cents` + 99 but `except`, as requests that expired a minute ago. */
async function closeAmountsBut(cents: number, except: number[]) {
  const { accountId } = await createAccount({ key: false });
  await sql(
    `INSERT INTO deposit_requests (reference, account_id, requested_cents, amount_cents, status, created_at, expires_at)
     SELECT 'DEP-T' || $2::bigint + k, $1, $2, $2::bigint + k, 'expired', now() - interval '61 minutes', now() - interval '1 minute'
       FROM generate_series(1, 99) AS k WHERE NOT ($2::bigint + k = ANY ($3::bigint[]))`,
    [accountId, cents, except],
  );
}

describe("a new request's amount", () => {
  it("is one no request had for two days while any is left, then one a closed request had", async () => {
    await closeAmountsBut(8_000, [8_042]);
    expect((await open(8_000)).amountCents).toBe(8_042);
    // Every other amount was a closed request's a minute ago: the smallest not open is issued.
    expect((await open(8_000)).amountCents).toBe(8_001);
  });
});

describe("statement rows whose amount two requests had", () => {
  it("are left for an admin unless they name their reference; the reissued request is credited only by its own row", async () => {
    // Approved on the queue, then its amount issued again to another holder (no other was left).
    const paid = await open(5_000);
    expect((await approveDeposit(paid.id, admin)).status).toBe("approved");
    await closeAmountsBut(5_000, [paid.amountCents]);
    const reissued = await open(5_000);
    expect(reissued.amountCents).toBe(paid.amountCents);
    // Expired unpaid, its amount issued again; its holder pays late.
    const late = await open(6_000);
    await sql(`UPDATE deposit_requests SET expires_at = now() - interval '5 minutes' WHERE id = $1`, [late.id]);
    await expireDepositRequests();
    await closeAmountsBut(6_000, [late.amountCents]);
    const afterLate = await open(6_000);
    expect(afterLate.amountCents).toBe(late.amountCents);
    // An amount no other request had.
    const fresh = await open(7_000);

    const today = new Date().toISOString().slice(0, 10);
    const now = new Date().toISOString().slice(0, 19);
    const usd = (cents: number) => (cents / 100).toFixed(2);
    const csv = [
      "date,amount,description",
      `${today},${usd(paid.amountCents)},transfer from the first payer`,
      `${now},${usd(late.amountCents)},late transfer`,
      `${today},${usd(reissued.amountCents)},${reissued.reference}`,
      `${today},${usd(fresh.amountCents)},transfer`,
    ].join("\n");
    const preview = await previewBankStatement(csv);
    if ("error" in preview) throw new Error(preview.error);
    expect(preview.matches.map((match) => match.reference)).toEqual([reissued.reference, fresh.reference]);
    expect(preview.unmatched).toEqual([
      expect.objectContaining({
        row: 2,
        reason: expect.stringMatching(
          new RegExp(`${paid.reference}'s \\(approved\\).*decide ${reissued.reference} on the queue`),
        ),
      }),
      expect.objectContaining({
        row: 3,
        reason: expect.stringMatching(
          new RegExp(`${late.reference}'s \\(expired\\).*decide ${afterLate.reference} on the queue`),
        ),
      }),
    ]);

    const approved = await approveStatementMatches({ csv, digest: preview.digest, by: admin });
    expect(approved).toMatchObject({ status: "done", approved: 2, skipped: 0 });
    expect(await balanceOf(paid.accountId)).toBe(paid.amountCents);
    expect(await balanceOf(reissued.accountId)).toBe(reissued.amountCents);
    expect(await balanceOf(fresh.accountId)).toBe(fresh.amountCents);
    expect(await balanceOf(afterLate.accountId)).toBe(0);
    const [pending] = await sql(`SELECT status FROM deposit_requests WHERE id = $1`, [afterLate.id]);
    expect(pending!.status).toBe("pending");
  });
});
