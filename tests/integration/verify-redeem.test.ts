// POST /brvvfy, /mobavfy and /rdmbr through the sandbox supplier: each outcome, the aliases, the
// code format, the MAINTENANCE switch, and a record per call that never holds the code.
import { createHash, createHmac } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { unpermuteId } from "@/lib/ids/permute-id";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { TEST_ENV } from "../setup/test-env";
import { useCleanDatabase } from "../helpers/clean-database";
import { setServerSwitch } from "../helpers/switches";

let key: string;
let accountId: number;

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  // Supplier-backed calls need an account funded at least once (README: SUPPLIER_CALLS_REQUIRE_FUNDING).
  ({ key, accountId } = await createAccount({ balanceCents: 100 }));
});

describe("POST /brvvfy", () => {
  it.each(["playerId", "playerID", "userId", "userID"])("finds a player sent as %s, with a nickname", async (field) => {
    const res = await api("/brvvfy", { key, body: { [field]: "5551234", trxid: "v1" } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      success: true,
      valid: true,
      game: "br",
      playerId: "5551234",
      nickname: expect.any(String),
    });
  });

  it("answers 404 PLAYER_NOT_FOUND and 503 SUPPLIER_UNAVAILABLE with Retry-After", async () => {
    const missing = await api("/brvvfy", { key, body: { playerId: "5550404" } });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ success: false, error: "PLAYER NOT FOUND", code: "PLAYER_NOT_FOUND" });
    const down = await api("/brvvfy", { key, body: { playerId: "5550500" } });
    expect(down.status).toBe(503);
    expect(down.json.code).toBe("SUPPLIER_UNAVAILABLE");
    expect(down.headers.get("retry-after")).toBe("5");
  });

  it("rejects a missing player id as INVALID BODY", async () => {
    const res = await api("/brvvfy", { key, body: { trxid: "v2" } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      success: false,
      error: "INVALID BODY",
      details: [expect.objectContaining({ field: "playerId" })],
    });
  });
});

describe("POST /mobavfy", () => {
  it("verifies a user in a zone; zoneId must be numeric", async () => {
    const ok = await api("/mobavfy", { key, body: { userID: "8812345", zoneId: 2101 } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ success: true, valid: true, game: "moba", playerId: "8812345", zoneId: "2101" });
    expect((await api("/mobavfy", { key, body: { userId: "8812345", zoneId: "north" } })).json.error).toBe(
      "INVALID BODY",
    );
    expect((await api("/mobavfy", { key, body: { userId: "8812345" } })).json.error).toBe("INVALID BODY");
    expect((await api("/mobavfy", { key, body: { userId: "8810404", zoneId: "1" } })).status).toBe(404);
  });
});

describe("POST /rdmbr", () => {
  it("redeems a well-formed code and records only its keyed fingerprint and last 4 characters", async () => {
    const res = await api("/rdmbr", { key, body: { playerId: "5551234", code: "abcd-efgh-1234", trxid: "r1" } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      success: true,
      redeemed: true,
      playerId: "5551234",
      redemptionId: expect.any(Number),
    });
    const row = await sqlRow(
      `SELECT kind, code_fingerprint, code_last4, outcome, trxid FROM redemptions WHERE id = $1`,
      [unpermuteId("redemption", res.json.redemptionId)],
    );
    expect(row).toEqual({
      kind: "redeem-br",
      code_fingerprint: createHmac("sha256", TEST_ENV.APP_SECRET!).update("redeem-code:ABCD-EFGH-1234").digest("hex"),
      code_last4: "1234",
      outcome: "redeemed",
      trxid: "r1",
    });
    // Neither the code nor its middle group is anywhere in the table, in any case.
    const dump = await sqlRow(`SELECT json_agg(r)::text AS text FROM redemptions r`);
    expect(dump.text.toUpperCase()).not.toContain("EFGH");
  });

  it("keeps the last 4 letters or digits, hyphens not counted, and no fingerprint an unkeyed hash would give", async () => {
    const res = await api("/rdmbr", { key, body: { playerId: "5551234", code: "WXYZ-AB-C9" } });
    expect(res.status).toBe(200);
    const row = await sqlRow(`SELECT code_fingerprint, code_last4 FROM redemptions WHERE id = $1`, [
      unpermuteId("redemption", res.json.redemptionId),
    ]);
    expect(row.code_last4).toBe("ABC9");
    expect(row.code_fingerprint).not.toBe(createHash("sha256").update("WXYZ-AB-C9").digest("hex"));
    expect(row.code_fingerprint).not.toBe(createHash("sha256").update("redeem-code:WXYZ-AB-C9").digest("hex"));
  });

  it.each([
    ["BAD0-0000-0000", 400, "INVALID_CODE"],
    ["USED-0000-0000", 409, "CODE_USED"],
  ])("code %s answers %i %s", async (code, status, errorCode) => {
    const res = await api("/rdmbr", { key, body: { playerId: "5551234", code } });
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ success: false, code: errorCode });
  });

  it("answers a code that is not groups separated by hyphens 400 INVALID_CODE, as docs/api.md says, without asking the supplier", async () => {
    const before = await sql(`SELECT count(*)::int AS n FROM redemptions WHERE account_id = $1`, [accountId]);
    for (const code of [
      "ABCDEFGH",
      "ABCD--EFGH",
      "-ABCD-EFGH",
      "AB CD-EFGH",
      "ABCD-EFGH-",
      "ÄBCD-EFGH",
      "A-BCDE",
      "",
    ]) {
      const res = await api("/rdmbr", { key, body: { playerId: "5551234", code } });
      expect(res.status, code).toBe(400);
      expect(res.json, code).toMatchObject({ success: false, error: "INVALID CODE", code: "INVALID_CODE" });
    }
    expect(await sql(`SELECT count(*)::int AS n FROM redemptions WHERE account_id = $1`, [accountId])).toEqual(before);
  });

  it("answers a missing code, a code that is not a string, or a bad player id with a bad code 400 INVALID BODY", async () => {
    for (const body of [
      { playerId: "5551234" },
      { playerId: "5551234", code: 1234 },
      { playerId: "5551234", code: null },
      { code: "ABCDEFGH" },
    ]) {
      const res = await api("/rdmbr", { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json, JSON.stringify(body)).toMatchObject({
        success: false,
        error: "INVALID BODY",
        code: "INVALID_BODY",
      });
    }
  });

  it("the verify-and-redeem section of docs/api.md says what the handler answers for a malformed code", async () => {
    const rules = fs.readFileSync(path.join(projectRoot, "docs/api.md"), "utf8");
    const start = rules.indexOf("## Verify and redeem");
    expect(start, "docs/api.md has its Verify and redeem section").toBeGreaterThan(-1);
    const section = rules.slice(start, rules.indexOf("\n## ", start + 1));
    expect(section).toMatch(/any other form is 400 `INVALID_CODE`/);
    expect(section).toMatch(/missing `code`, or one that is not a string, is 400 `INVALID BODY`/);
    const res = await api("/rdmbr", { key, body: { playerId: "5551234", code: "NOT A CODE" } });
    expect(res.json.code).toBe("INVALID_CODE");
    const document = (await api("/openapi.json")).json;
    expect(document.paths["/rdmbr"].post.description).toContain("400 INVALID_CODE when the code is not of that form");
  });

  it("is paused by MAINTENANCE while verification keeps working", async () => {
    await setServerSwitch("MAINTENANCE", key);
    try {
      expect((await api("/rdmbr", { key, body: { playerId: "5551234", code: "ABCD-EFGH" } })).status).toBe(503);
      expect((await api("/brvvfy", { key, body: { playerId: "5551234" } })).status).toBe(200);
    } finally {
      await setServerSwitch("none", key);
    }
  });

  it("records every call for the account", async () => {
    const kinds = await sql(`SELECT DISTINCT kind FROM redemptions WHERE account_id = $1 ORDER BY kind`, [accountId]);
    expect(kinds.map((k) => k.kind)).toEqual(["redeem-br", "verify-br", "verify-moba"]);
  });
});
