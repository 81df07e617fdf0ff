// The money functions (prisma/functions/), called as the service calls them (post_ledger_entry through
// postLedgerEntry, in its own transaction each), under contention: a wallet never goes below zero,
// each posting is whole or absent, the account's entries are numbered 1..n in posting order, and
// balance.low is recorded once per crossing. place_order takes an order's mode, its supplier and its
// use of stock from the account, not from its caller.
import { describe, expect, it } from "vitest";
import { withTransaction } from "@/lib/db/pool";
import { InsufficientBalanceError, postLedgerEntry } from "@/lib/wallet/sql/post-ledger-entry";
import { setLowBalanceThreshold } from "@/lib/webhooks/set-low-balance-threshold";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { useCleanDatabase } from "../helpers/clean-database";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { creditTestWallet } from "@/lib/wallet/test-wallet";

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

describe("place_order decides an order's mode from its account", () => {
  /** place_order as lib/orders/sql/place-order.ts calls it, for a quantity of a pack. */
  async function placeDirectly(account: { accountId: number; keyId: number }, catalogId: string, quantity: number) {
    const { id } = await sqlRow(`SELECT nextval(pg_get_serial_sequence('orders', 'id'))::int AS id`);
    const trxid = `direct-${id}`;
    const placed = await sqlRow(
      `SELECT p.outcome, (p.placed).status, (p.placed).supplier, (p.placed).livemode
         FROM place_order(order_id => $1, public_id => $2, account_id => $3, api_key_id => $4, trxid => $5,
                          idempotency_key => $5, request_fingerprint => 'fp', catalog_id => $6, quantity => $7,
                          user_id => '5551234', zone_id => NULL, server_id => NULL,
                          sent_user_id => '5551234', sent_zone_id => NULL, sent_server_id => NULL,
                          low_event_id => $8, max_price_cents => NULL, metadata => NULL) p`,
      [id, `SVCAPI-T-${id}`, account.accountId, account.keyId, trxid, catalogId, quantity, `evt_${id}`],
    );
    const { reserved } = await sqlRow(`SELECT count(*)::int AS reserved FROM inventory_codes WHERE order_id = $1`, [
      id,
    ]);
    return { ...placed, reserved };
  }

  it("a test account's game keys take no stock and its top-ups go to the sandbox; a live account's take stock", async () => {
    const live = await createAccount({ balanceCents: 100_000 });
    const testKey = await issueApiKey(live.accountId, "test", { livemode: false });
    if (testKey.status !== "created") throw new Error(testKey.status);
    await creditTestWallet(live.accountId, 100_000, "test");
    const { id: testAccountId } = await sqlRow(`SELECT id FROM accounts WHERE live_account_id = $1`, [live.accountId]);
    const test = { accountId: testAccountId, keyId: testKey.id };
    const available = async () =>
      (
        await sqlRow(
          `SELECT count(*)::int AS n FROM inventory_codes c JOIN products p ON p.id = c.product_id
            WHERE p.catalog_id = 'SVCGKINDIE' AND c.status = 'available'`,
        )
      ).n;
    const stock = await available();

    // More keys than there are in stock: a test order takes none, so it is placed all the same.
    expect(await placeDirectly(test, "SVCGKINDIE", stock + 1)).toMatchObject({
      outcome: "placed",
      status: "processing",
      supplier: null,
      livemode: false,
      reserved: 0,
    });
    expect(await placeDirectly(test, "SVCBR60", 1)).toMatchObject({ supplier: "sandbox", livemode: false });
    expect(await available()).toBe(stock);

    await expect(placeDirectly(live, "SVCGKINDIE", stock + 1)).rejects.toThrow(/INSUFFICIENT_STOCK/);
    expect(await placeDirectly(live, "SVCGKINDIE", 2)).toMatchObject({ livemode: true, supplier: null, reserved: 2 });
    expect(await placeDirectly(live, "SVCBR60", 1)).toMatchObject({ livemode: true, supplier: null });
    expect(await available()).toBe(stock - 2);
  });
});
