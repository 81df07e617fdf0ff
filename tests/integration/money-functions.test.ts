// The money functions of the migrations, called as the service calls them (post_ledger_entry through
// postLedgerEntry, in its own transaction each), under contention: a wallet never goes below zero,
// each posting is whole or absent, the account's entries are numbered 1..n in posting order, and
// balance.low is recorded once per crossing.
import { describe, expect, it } from "vitest";
import { withTransaction } from "@/lib/db/pool";
import { InsufficientBalanceError, postLedgerEntry } from "@/lib/wallet/sql/post-ledger-entry";
import { setLowBalanceThreshold } from "@/lib/webhooks/set-low-balance-threshold";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase({ checkBooks: true });

const debit = (accountId: number, cents: number) =>
  withTransaction((client) =>
    postLedgerEntry(client, { accountId, kind: "debit", amountCents: -cents, actor: "test", reason: "race" }),
  );

describe("post_ledger_entry under contention", () => {
  it("40 parallel debits on a wallet that covers 13: 13 posted, 27 refused, nothing below zero, numbered 1..n", async () => {
    const account = await createAccount({ balanceCents: 1300 });
    await setLowBalanceThreshold({ accountId: account.accountId, thresholdCents: 500, actor: "test" });
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, () => debit(account.accountId, 100)));
    const posted = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(posted).toHaveLength(13);
    for (const o of refused) expect((o as PromiseRejectedResult).reason).toBeInstanceOf(InsufficientBalanceError);

    const { balance_cents } = await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId]);
    expect(Number(balance_cents)).toBe(0);
    const entries = await sql<{ account_seq: number; balance_after_cents: string; amount_cents: string }>(
      `SELECT account_seq, balance_after_cents, amount_cents FROM ledger_entries WHERE account_id = $1 ORDER BY account_seq`,
      [account.accountId],
    );
    expect(entries.map((e) => e.account_seq)).toEqual(Array.from({ length: entries.length }, (_, i) => i + 1));
    // The fixture's credit, then each debit leaves 100 less, never below zero.
    expect(entries.slice(1).map((e) => Number(e.balance_after_cents))).toEqual(
      Array.from({ length: 13 }, (_, i) => 1200 - i * 100),
    );
    const low = await sql(`SELECT data FROM webhook_events WHERE account_id = $1 AND type = 'balance.low'`, [
      account.accountId,
    ]);
    expect(low).toEqual([{ data: { balanceUsd: 4, currency: "USD", thresholdUsd: 5 } }]);
  });
});
