// What the overview and the orders page give an operator to watch: the wallet liability (the sum
// of live balances, test wallets left out), the packs below their stock alert, and the orders
// export (the page's filters, every row across pages, formula text neutralised), over HTTP against
// the dashboard's build with a viewer's session.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { readWalletLiability } from "@/lib/dashboard/read-wallet-liability";
import { creditTestWallet } from "@/lib/wallet/test-wallet";
import { cancelAndRefundOrder } from "@/lib/fulfilment/sql/settle-order";
import { suiteBaseUrl } from "../helpers/suite";
import { mintSessionCookie } from "../helpers/admin-session";
import { enableTwoFactor } from "../helpers/two-factor";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase();

const built = fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"));
if (!built) console.log("[operator signals] dashboard pages skipped: no Next build (.next); run without SKIP_BUILD");

let cookie: string;
beforeAll(async () => {
  const email = "viewer@example.com";
  expect(
    (await createAdminUser({ email, password: "a long enough password", role: "viewer", actor: "test" })).status,
  ).toBe("created");
  await enableTwoFactor(email);
  cookie = await mintSessionCookie({ email });
});

async function liveBalanceSum(): Promise<number> {
  return Number(
    (await sqlRow(`SELECT COALESCE(sum(balance_cents), 0) AS s FROM accounts WHERE live_account_id IS NULL`)).s,
  );
}

describe("wallet liability", () => {
  it("equals the sum of live balances, test wallets left out", async () => {
    const accounts = await Promise.all([12_345, 678, 0].map((balanceCents) => createAccount({ balanceCents })));
    const spender = accounts[0]!;
    expect((await order(spender.key, { pid: "SVCBR60", trxid: newTrxid("liab"), userId: "5123456" })).status).toBe(200);
    // Play money in a holder's test wallet is owed to no one.
    expect((await creditTestWallet(accounts[1]!.accountId, 999_900, "test")).status).toBe("credited");

    const liability = await readWalletLiability();
    expect(liability.totalCents).toBe(await liveBalanceSum());
    expect(liability.totalCents).toBe(12_345 - 99 + 678);
    expect(liability.fundedAccounts).toBe(2);
  });

  it("is what the overview page shows a viewer", async (ctx) => {
    ctx.skip(!built, "no Next build (.next): run without SKIP_BUILD");
    await createAccount({ balanceCents: 4_321 });
    const page = await fetch(`${suiteBaseUrl()}/admin`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(new RegExp(`data-testid="wallet-liability"[^>]*data-cents="${await liveBalanceSum()}"`));
  });
});

describe.skipIf(!built)("the orders export", () => {
  it("holds exactly the filtered orders, across pages, with formula text neutralised", async () => {
    const account = await createAccount({ balanceCents: 1_000_000 });
    const other = await createAccount({ balanceCents: 10_000 });
    for (let i = 0; i < 230; i++) {
      const trxid = i === 0 ? "=HYPERLINK(1)" : newTrxid("exp");
      expect((await order(account.key, { pid: "SVCBR60", trxid, userId: "5123456" })).status).toBe(200);
    }
    expect((await order(other.key, { pid: "SVCBR60", trxid: newTrxid("other"), userId: "5123456" })).status).toBe(200);
    const first = await sqlRow(`SELECT id FROM orders WHERE trxid = '=HYPERLINK(1)'`);
    expect((await cancelAndRefundOrder(first.id, "@SUM(1+1)")).settled).toBe(true);

    const anonymous = await fetch(`${suiteBaseUrl()}/admin/orders/export.csv`, { redirect: "manual" });
    expect(anonymous.status).toBe(307);

    const res = await fetch(`${suiteBaseUrl()}/admin/orders/export.csv?account=${account.accountId}`, {
      headers: { cookie },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"/);
    const lines = (await res.text()).trim().split("\r\n");
    expect(lines[0]).toBe(
      "order_id,status,charged,needs_admin,account_id,account_username,line,pack,quantity,amount_usd,cost_usd,margin_usd," +
        "user_id,zone_id,server_id,trxid,error,created_at,finished_at,livemode,metadata",
    );
    const rows = lines.slice(1);
    // Every order of the account (more than one page of 200), newest first, and none of the other's.
    expect(rows).toHaveLength(230);
    const stored = await sql(`SELECT public_id FROM orders WHERE account_id = $1 ORDER BY id DESC`, [
      account.accountId,
    ]);
    expect(rows.map((row) => row.slice(1, row.indexOf('"', 1)))).toEqual(stored.map((o) => o.public_id));
    const cancelled = rows.at(-1)!;
    expect(cancelled).toContain(`"cancelled","true","false","${account.accountId}"`);
    expect(cancelled).toContain(`"'=HYPERLINK(1)","'@SUM(1+1)"`);
    expect(cancelled).toContain(`"0.99","",""`);

    const filtered = await fetch(
      `${suiteBaseUrl()}/admin/orders/export.csv?account=${account.accountId}&status=cancelled`,
      {
        headers: { cookie },
      },
    );
    expect((await filtered.text()).trim().split("\r\n")).toHaveLength(2);

    const bad = await fetch(`${suiteBaseUrl()}/admin/orders/export.csv?status=lost`, { headers: { cookie } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Unknown status");
  });
});
