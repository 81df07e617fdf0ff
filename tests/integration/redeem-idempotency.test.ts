// POST /rdmbr is idempotent per account on trxid: a retry answers the first final outcome byte for
// byte (and never asks the supplier again), SUPPLIER_UNAVAILABLE is retried under the same supplier
// reference, parallel duplicates redeem once, and a different request with the same trxid is 409.
// A web server of its own talks to the real h2h client against a local supplier over HTTP, which
// counts the redeem calls it receives. Verify calls are not idempotent: each one asks again.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api as apiAt, type ApiResult } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { startFakeH2hSupplier, type FakeH2hSupplier } from "../helpers/fake-h2h-supplier";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteDatabaseUrl } from "../helpers/suite";

let supplier: FakeH2hSupplier;
let server: ChildProcess;
let baseUrl: string;
let account: Awaited<ReturnType<typeof createAccount>>;
let sequence = 0;

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  supplier = await startFakeH2hSupplier({ partnerId: "p-rdm", secret: "s-rdm" });
  const started = await startServer({
    ...TEST_ENV,
    DATABASE_URL: suiteDatabaseUrl(),
    SERVE_DASHBOARD: "0",
    SUPPLIER: "h2h",
    H2H_BASE_URL: supplier.baseUrl,
    H2H_PARTNER_ID: "p-rdm",
    H2H_SECRET: "s-rdm",
    H2H_TIMEOUT_MS: "10000",
  });
  server = started.child;
  baseUrl = started.baseUrl;
  // Supplier-backed calls need an account funded at least once (README: SUPPLIER_CALLS_REQUIRE_FUNDING).
  account = await createAccount({ balanceCents: 100 });
});

afterAll(async () => {
  server?.kill("SIGTERM");
  if (server && server.exitCode === null) await new Promise((resolve) => server.once("exit", resolve));
  await supplier?.close();
});

function api(path: string, call: Parameters<typeof apiAt>[1]) {
  return apiAt(path, call, baseUrl);
}

/** A player the supplier knows and an unused code, both new to this test. */
function freshPlayerAndCode() {
  sequence++;
  const playerId = `77100${sequence}`;
  const code = `IDEM-${String(sequence).padStart(4, "0")}-ABCD`;
  supplier.addPlayer(playerId, `Nick${sequence}`);
  supplier.addCode(code);
  return { playerId, code, trxid: `rdm-${sequence}-${Date.now()}` };
}

function redeemCallsFor(playerId: string) {
  return supplier.requests.filter(
    (request) => request.route === "redeem" && JSON.parse(request.body).playerId === playerId,
  );
}

function redeem(key: string, body: Record<string, unknown>): Promise<ApiResult> {
  return api("/rdmbr", { key, body });
}

describe("POST /rdmbr with a trxid", () => {
  it("a retry answers the first redemption byte for byte and asks the supplier once", async () => {
    const { playerId, code, trxid } = freshPlayerAndCode();
    const first = await redeem(account.key, { playerId, code, trxid });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ success: true, redeemed: true, playerId, nickname: `Nick${sequence}` });
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    // The code is spent now: a fresh attempt would be refused, the retry is not.
    const retry = await redeem(account.key, { playerId, code: code.toLowerCase(), trxid });
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(redeemCallsFor(playerId)).toHaveLength(1);

    const fresh = await redeem(account.key, { playerId, code, trxid: `${trxid}-new` });
    expect(fresh.status).toBe(409);
    expect(fresh.json.code).toBe("CODE_USED");
  });

  it.each([
    ["CODE_USED", 409, "used"],
    ["INVALID_CODE", 400, "unknown"],
    ["PLAYER_NOT_FOUND", 404, "no player"],
  ] as const)("a final refusal (%s) is answered again, not re-asked", async (errorCode, status, setup) => {
    const { playerId, code, trxid } = freshPlayerAndCode();
    const body = {
      playerId: setup === "no player" ? `${playerId}0` : playerId,
      code: setup === "unknown" ? `${code}-XX` : code,
      trxid,
    };
    if (setup === "used") supplier.addCode(code, "used");
    const first = await redeem(account.key, body);
    expect(first.status).toBe(status);
    expect(first.json).toMatchObject({ success: false, code: errorCode });
    // Had the supplier been asked again, these would now succeed.
    if (setup === "used") supplier.addCode(code, "unused");
    if (setup === "unknown") supplier.addCode(body.code);
    if (setup === "no player") supplier.addPlayer(body.playerId, "Late");
    const retry = await redeem(account.key, body);
    expect(retry.status).toBe(status);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(redeemCallsFor(body.playerId)).toHaveLength(1);
  });

  it("the same trxid with another code or player is 409 IDEMPOTENCY_MISMATCH and reaches no supplier", async () => {
    const { playerId, code, trxid } = freshPlayerAndCode();
    expect((await redeem(account.key, { playerId, code, trxid })).status).toBe(200);
    const otherCode = await redeem(account.key, { playerId, code: "OTHER-CODE-1234", trxid });
    expect(otherCode.status).toBe(409);
    expect(otherCode.json).toEqual({
      success: false,
      error: "TRXID REUSED WITH DIFFERENT REQUEST",
      code: "IDEMPOTENCY_MISMATCH",
    });
    const otherPlayer = await redeem(account.key, { playerId: `${playerId}1`, code, trxid });
    expect(otherPlayer.status).toBe(409);
    expect(otherPlayer.json.code).toBe("IDEMPOTENCY_MISMATCH");
    expect(
      supplier.requests.filter((request) => request.route === "redeem" && request.body.includes("OTHER-CODE")),
    ).toEqual([]);
  });

  it("is scoped per account: another key of the account is 403, another account is a redemption of its own", async () => {
    const { playerId, code, trxid } = freshPlayerAndCode();
    expect((await redeem(account.key, { playerId, code, trxid })).status).toBe(200);
    const secondKey = await issueTestKey(account.accountId);
    const fromSecondKey = await redeem(secondKey.key, { playerId, code, trxid });
    expect(fromSecondKey.status).toBe(403);
    expect(fromSecondKey.json.code).toBe("FORBIDDEN");

    const other = await createAccount({ balanceCents: 100 });
    const { playerId: otherPlayer, code: otherCode } = freshPlayerAndCode();
    const theirs = await redeem(other.key, { playerId: otherPlayer, code: otherCode, trxid });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
  });

  it("SUPPLIER_UNAVAILABLE is not stored: the retry asks again under the same reference", async () => {
    const { playerId, code, trxid } = freshPlayerAndCode();
    supplier.failNext("redeem", { kind: "status", httpStatus: 503 });
    const first = await redeem(account.key, { playerId, code, trxid });
    expect(first.status).toBe(503);
    expect(first.json.code).toBe("SUPPLIER_UNAVAILABLE");
    expect(first.headers.get("retry-after")).toBe("5");

    const retry = await redeem(account.key, { playerId, code, trxid });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const calls = redeemCallsFor(playerId);
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((call) => JSON.parse(call.body).reference)).size).toBe(1);
  });

  it("a redemption whose answer was lost is found by the retry, not refused as CODE_USED", async () => {
    const { playerId, code, trxid } = freshPlayerAndCode();
    supplier.failNext("redeem", { kind: "lose-answer" });
    const first = await redeem(account.key, { playerId, code, trxid });
    expect(first.status).toBe(503);
    const retry = await redeem(account.key, { playerId, code, trxid });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json).toMatchObject({ redeemed: true, playerId });
  });

  it("parallel duplicates redeem once at the supplier: one answer, the rest DUPLICATE_IN_FLIGHT or its replay", async () => {
    const { playerId, code, trxid } = freshPlayerAndCode();
    // The supplier takes its time, so the duplicates arrive while the first is with it.
    supplier.failNext("redeem", { kind: "delay", ms: 1500 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => redeem(account.key, { playerId, code, trxid })));
    const redeemed = answers.filter((answer) => answer.status === 200);
    const inFlight = answers.filter((answer) => answer.status === 429);
    expect(redeemed.length + inFlight.length, answers.map((answer) => answer.text).join("\n")).toBe(8);
    expect(redeemed.length).toBeGreaterThanOrEqual(1);
    for (const answer of inFlight) expect(answer.json).toMatchObject({ success: false, code: "DUPLICATE_IN_FLIGHT" });
    expect(new Set(redeemed.map((answer) => answer.text)).size).toBe(1);
    expect(redeemCallsFor(playerId)).toHaveLength(1);

    const after = await redeem(account.key, { playerId, code, trxid });
    expect(after.text).toBe(redeemed[0]!.text);
    expect(
      await sql(`SELECT outcome FROM redemptions WHERE account_id = $1 AND trxid = $2`, [account.accountId, trxid]),
    ).toEqual([{ outcome: "redeemed" }]);
  });

  it("an attempt pending past its lease is taken over under the same reference; the code is redeemed once", async () => {
    const { playerId, code, trxid } = freshPlayerAndCode();
    supplier.failNext("redeem", { kind: "delay", ms: 3000 });
    const first = redeem(account.key, { playerId, code, trxid });
    await expect
      .poll(async () => (await sqlRow(`SELECT outcome FROM redemptions WHERE trxid = $1`, [trxid]))?.outcome, {
        timeout: 10_000,
      })
      .toBe("pending");
    expect((await redeem(account.key, { playerId, code, trxid })).json.code).toBe("DUPLICATE_IN_FLIGHT");
    // As if the process that made the attempt had died a minute ago.
    await sql(`UPDATE redemptions SET attempted_at = now() - interval '61 seconds' WHERE trxid = $1`, [trxid]);
    const takeover = await redeem(account.key, { playerId, code, trxid });
    expect(takeover.status, takeover.text).toBe(200);
    expect((await first).status).toBe(200);
    const calls = redeemCallsFor(playerId);
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((call) => JSON.parse(call.body).reference)).size).toBe(1);
  });
});

describe("without a trxid, and verify calls", () => {
  it("a redeem without a trxid is a new attempt each time", async () => {
    const { playerId, code } = freshPlayerAndCode();
    expect((await redeem(account.key, { playerId, code })).status).toBe(200);
    const again = await redeem(account.key, { playerId, code });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("CODE_USED");
    expect(redeemCallsFor(playerId)).toHaveLength(2);
  });

  it("a verify with a repeated trxid asks the supplier again and answers the current state", async () => {
    const playerId = `77200${++sequence}`;
    const trxid = `vfy-${sequence}`;
    const before = await api("/brvvfy", { key: account.key, body: { playerId, trxid } });
    expect(before.status).toBe(404);
    supplier.addPlayer(playerId, "Newcomer");
    const after = await api("/brvvfy", { key: account.key, body: { playerId, trxid } });
    expect(after.status).toBe(200);
    expect(after.json).toMatchObject({ valid: true, nickname: "Newcomer" });
    expect(after.headers.get("idempotent-replayed")).toBeNull();
    expect(
      supplier.requests.filter((request) => request.route === "verify" && request.body.includes(playerId)),
    ).toHaveLength(2);
  });
});
