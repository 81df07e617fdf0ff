// /brvvfy, /mobavfy and /rdmbr each cost a supplier call, so an account that has never been funded
// is refused on them with 403 API_NOT_ELIGIBLE while SUPPLIER_CALLS_REQUIRE_FUNDING is on (the
// default; README: Configuration). Two web servers of their own talk to a local H2H supplier over
// HTTP that records every request: one with the default, one with the switch off.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmWalletAdjustment } from "@/lib/wallet/confirm-wallet-adjustment";
import { requestWalletAdjustment } from "@/lib/wallet/request-wallet-adjustment";
import { api as apiAt, type ApiResult } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { startFakeH2hSupplier, type FakeH2hSupplier } from "../helpers/fake-h2h-supplier";
import { newTrxid } from "../helpers/orders";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteDatabaseUrl } from "../helpers/suite";

const ADMIN_TELEGRAM_ID = 4242;

let supplier: FakeH2hSupplier;
let servers: ChildProcess[] = [];
let defaultUrl: string;
let switchedOffUrl: string;
let sequence = 0;

useCleanDatabase();
beforeAll(async () => {
  supplier = await startFakeH2hSupplier({ partnerId: "p-fund", secret: "s-fund" });
  const common = {
    ...TEST_ENV,
    DATABASE_URL: suiteDatabaseUrl(),
    SERVE_DASHBOARD: "0",
    SUPPLIER: "h2h",
    H2H_BASE_URL: supplier.baseUrl,
    H2H_PARTNER_ID: "p-fund",
    H2H_SECRET: "s-fund",
    H2H_TIMEOUT_MS: "10000",
  };
  const [withDefault, switchedOff] = await Promise.all([
    startServer(common),
    startServer({ ...common, SUPPLIER_CALLS_REQUIRE_FUNDING: "0" }),
  ]);
  servers = [withDefault.child, switchedOff.child];
  defaultUrl = withDefault.baseUrl;
  switchedOffUrl = switchedOff.baseUrl;
});

afterAll(async () => {
  for (const server of servers) {
    server.kill("SIGTERM");
    if (server.exitCode === null) await new Promise((resolve) => server.once("exit", resolve));
  }
  await supplier?.close();
});

/** A player the supplier knows and an unused code, both new to this call. */
function fresh() {
  sequence++;
  const playerId = `66100${sequence}`;
  const code = `FUND-${String(sequence).padStart(4, "0")}-ABCD`;
  supplier.addPlayer(playerId, `Nick${sequence}`);
  supplier.addCode(code);
  return { playerId, code };
}

/** The three supplier-backed calls, each with a player (and code) of its own. */
function supplierCalls(key: string, baseUrl: string): Promise<ApiResult>[] {
  const br = fresh();
  const moba = fresh();
  const redeem = fresh();
  return [
    apiAt("/brvvfy", { key, body: { playerId: br.playerId, trxid: newTrxid("v") } }, baseUrl),
    apiAt("/mobavfy", { key, body: { userId: moba.playerId, zoneId: "2101", trxid: newTrxid("m") } }, baseUrl),
    apiAt("/rdmbr", { key, body: { playerId: redeem.playerId, code: redeem.code, trxid: newTrxid("r") } }, baseUrl),
  ];
}

async function recordedCalls(accountId: number): Promise<number> {
  return (await sqlRow(`SELECT count(*)::int AS n FROM redemptions WHERE account_id = $1`, [accountId])).n;
}

/** An admin's credit through the bot's own two steps (/credit, then Confirm). */
async function adminCredit(accountId: number, amountCents: number): Promise<void> {
  const requested = await requestWalletAdjustment({
    kind: "credit",
    accountId,
    amountCents,
    note: "top-up",
    adminTelegramId: ADMIN_TELEGRAM_ID,
    adminUserId: 1,
    actor: `telegram:${ADMIN_TELEGRAM_ID}`,
  });
  expect(requested.status).toBe("requested");
  const confirmed = await confirmWalletAdjustment({
    token: (requested as { request: { token: string } }).request.token,
    adminTelegramId: ADMIN_TELEGRAM_ID,
    adminUserId: 1,
    actor: `telegram:${ADMIN_TELEGRAM_ID}`,
  });
  expect(confirmed.status).toBe("confirmed");
}

describe("with SUPPLIER_CALLS_REQUIRE_FUNDING on (the default)", () => {
  it("a never-funded account is refused 403 API_NOT_ELIGIBLE on all three; nothing is recorded or sent", async () => {
    const account = await createAccount();
    const sentBefore = supplier.requests.length;
    for (const res of await Promise.all(supplierCalls(account.key, defaultUrl))) {
      expect(res.status, res.text).toBe(403);
      expect(res.json).toEqual({
        success: false,
        error: "Verify and redeem calls need an account funded at least once: top up your wallet in the bot",
        code: "API_NOT_ELIGIBLE",
      });
    }
    expect(await recordedCalls(account.accountId)).toBe(0);
    expect(supplier.requests.length).toBe(sentBefore);
    // The rest of the API still answers the account.
    expect((await apiAt("/balance", { key: account.key }, defaultUrl)).status).toBe(200);
  });

  it("after an admin credit all three work", async () => {
    const account = await createAccount();
    expect((await Promise.all(supplierCalls(account.key, defaultUrl))).map((r) => r.status)).toEqual([403, 403, 403]);
    await adminCredit(account.accountId, 500);
    const sentBefore = supplier.requests.length;
    for (const res of await Promise.all(supplierCalls(account.key, defaultUrl))) expect(res.status, res.text).toBe(200);
    expect(await recordedCalls(account.accountId)).toBe(3);
    expect(supplier.requests.length - sentBefore).toBe(3);
  });

  it("an account funded once and spent down to $0 keeps them", async () => {
    const account = await createAccount();
    await adminCredit(account.accountId, 99);
    const placed = await apiAt(
      "/orders",
      { key: account.key, body: { pid: "SVCBR60", trxid: newTrxid("spend"), userId: "5123456" } },
      defaultUrl,
    );
    expect(placed.json).toMatchObject({ orderCreated: true, amountUsd: 0.99 });
    expect((await apiAt("/balance", { key: account.key }, defaultUrl)).json.balanceUsd).toBe(0);
    for (const res of await Promise.all(supplierCalls(account.key, defaultUrl))) expect(res.status, res.text).toBe(200);
    expect(await recordedCalls(account.accountId)).toBe(3);
  });
});

describe("with SUPPLIER_CALLS_REQUIRE_FUNDING=0", () => {
  it("a never-funded account uses all three", async () => {
    const account = await createAccount();
    const sentBefore = supplier.requests.length;
    for (const res of await Promise.all(supplierCalls(account.key, switchedOffUrl)))
      expect(res.status, res.text).toBe(200);
    expect(await recordedCalls(account.accountId)).toBe(3);
    expect(supplier.requests.length - sentBefore).toBe(3);
    const { total_credited_cents } = await sqlRow(`SELECT total_credited_cents FROM accounts WHERE id = $1`, [
      account.accountId,
    ]);
    expect(Number(total_credited_cents)).toBe(0);
    expect(await sql(`SELECT 1 FROM ledger_entries WHERE account_id = $1`, [account.accountId])).toEqual([]);
  });
});
