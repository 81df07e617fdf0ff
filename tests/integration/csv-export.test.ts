// Every CSV export over HTTP (the API's GET /ledger?format=csv and the dashboard's account ledger
// download): text a spreadsheet would run as a formula arrives neutralised, whoever wrote it (an
// admin's funding note, a supplier's refusal), while money stays plain numbers.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { cancelAndRefundOrder } from "@/lib/fulfilment/sql/settle-order";
import { suiteBaseUrl } from "../helpers/suite";
import { api } from "../helpers/api";
import { mintSessionCookie } from "../helpers/admin-session";
import { enableTwoFactor } from "../helpers/two-factor";
import { sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase();

/** An account whose ledger carries formula text from an admin and from a supplier. */
async function accountWithHostileLedger() {
  const account = await createAccount();
  // An admin's note, as /credit in the bot stores it.
  await creditWallet({
    accountId: account.accountId,
    amountCents: 500,
    actor: "telegram:1",
    reason: '=HYPERLINK("http://evil.example","pay")',
  });
  await creditWallet({
    accountId: account.accountId,
    amountCents: 100,
    actor: "=admin:1+1",
    reason: "@SUM(1+1)*cmd|' /C calc'!A0",
  });
  // A supplier's refusal becomes the refund's reason (no worker runs here: the order stays
  // processing, and this is the worker's own settlement call with the supplier's text).
  const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid("csv"), userId: "8600001" });
  expect(placed.status).toBe(200);
  const row = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [placed.json.orderId]);
  expect((await cancelAndRefundOrder(row.id, "-2+3+cmd|' /C calc'!A0")).settled).toBe(true);
  return { ...account, publicOrderId: placed.json.orderId as string };
}

/** No cell starts a formula: each begins with a digit, a letter, a quote mark, a minus and a digit (a number), or is empty. */
function expectNoFormulaCells(lines: string[]) {
  for (const line of lines) {
    for (const cell of line.match(/"(?:[^"]|"")*"/g)!)
      expect(cell, line).toMatch(/^"(?:$|"|[0-9A-Za-z'"]|-\d+\.\d\d")/);
  }
}

describe("GET /ledger?format=csv", () => {
  it("escapes formula text from admins and suppliers, and keeps amounts as numbers", async () => {
    const account = await accountWithHostileLedger();
    const csv = await api("/ledger?format=csv", { key: account.key });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = csv.text.trim().split("\r\n");
    expect(lines[0]).toBe("id,type,amount_usd,balance_after_usd,order_id,reason,created_at");
    expect(lines).toHaveLength(5);
    const [refund, debit, secondCredit, firstCredit] = lines.slice(1);
    expect(refund).toContain(`"refund","0.99","6.00","${account.publicOrderId}","'-2+3+cmd|' /C calc'!A0"`);
    expect(debit).toContain(`"debit","-0.99","5.01","${account.publicOrderId}"`);
    expect(secondCredit).toContain(`"credit","1.00","6.00","","'@SUM(1+1)*cmd|' /C calc'!A0"`);
    expect(firstCredit).toContain(`"credit","5.00","5.00","","'=HYPERLINK(""http://evil.example"",""pay"")"`);
    expectNoFormulaCells(lines.slice(1));
    await expectBooksBalance();
  });
});

const built = fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"));
if (!built) console.log("[csv export] dashboard download skipped: no Next build (.next); run without SKIP_BUILD");

describe.skipIf(!built)("the dashboard's account ledger download", () => {
  it("is for signed-in admins only, and escapes admin and supplier text the same way", async () => {
    const account = await accountWithHostileLedger();
    const url = `${suiteBaseUrl()}/admin/accounts/${account.accountId}/ledger.csv`;
    const anonymous = await fetch(url, { redirect: "manual" });
    expect(anonymous.status).toBe(307);
    expect(anonymous.headers.get("location")).toContain("/admin/login");
    expect(await anonymous.text()).not.toContain("HYPERLINK");

    expect(
      (
        await createAdminUser({
          email: "csv@example.com",
          password: "a long enough password",
          role: "owner",
          actor: "test",
        })
      ).status,
    ).toBe("created");
    // A session cookie as next-auth issues it (signed with the server's NEXTAUTH_SECRET).
    await enableTwoFactor("csv@example.com");
    const cookie = await mintSessionCookie({ email: "csv@example.com" });
    const res = await fetch(url, { redirect: "manual", headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toContain(`account-${account.accountId}-ledger.csv`);
    const lines = (await res.text()).trim().split("\r\n");
    expect(lines[0]).toBe(
      "id,kind,amount_usd,balance_after_usd,order_id,order_cost_usd,order_margin_usd,actor,reason,created_at",
    );
    expect(lines).toHaveLength(5);
    const [refund, debit, secondCredit, firstCredit] = lines.slice(1);
    // A cancelled order cost nothing and earned nothing: no cost or margin on its lines.
    expect(refund).toContain(
      `"refund","0.99","6.00","${account.publicOrderId}","","","worker","'-2+3+cmd|' /C calc'!A0"`,
    );
    expect(debit).toContain(`"debit","-0.99","5.01","${account.publicOrderId}"`);
    expect(secondCredit).toContain(`"credit","1.00","6.00","","","","'=admin:1+1","'@SUM(1+1)*cmd|' /C calc'!A0"`);
    expect(firstCredit).toContain(
      `"credit","5.00","5.00","","","","telegram:1","'=HYPERLINK(""http://evil.example"",""pay"")"`,
    );
    expectNoFormulaCells(lines.slice(1));

    const missing = await fetch(`${suiteBaseUrl()}/admin/accounts/999999/ledger.csv`, {
      headers: { cookie },
    });
    expect(missing.status).toBe(404);
  });
});
