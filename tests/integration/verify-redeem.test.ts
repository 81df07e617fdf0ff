// POST /brvvfy, /mobavfy and /rdmbr through the sandbox supplier: each outcome, the aliases, the
// code format, the MAINTENANCE switch, and a record per call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { api } from "../helpers/api";
import { closeSql, resetDatabase, sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";

let key: string;
let accountId: number;

beforeAll(async () => {
  await resetDatabase();
  ({ key, accountId } = await createAccount());
});
afterAll(async () => {
  await closePool();
  await closeSql();
});

describe("POST /brvvfy", () => {
  it.each(["playerId", "playerID", "userId", "userID"])("finds a player sent as %s, with a nickname", async (field) => {
    const res = await api("/brvvfy", { key, body: { [field]: "5551234", trxid: "v1" } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, valid: true, game: "br", playerId: "5551234", nickname: expect.any(String) });
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
    expect(res.json).toMatchObject({ success: false, error: "INVALID BODY", details: [expect.objectContaining({ field: "playerId" })] });
  });
});

describe("POST /mobavfy", () => {
  it("verifies a user in a zone; zoneId must be numeric", async () => {
    const ok = await api("/mobavfy", { key, body: { userID: "8812345", zoneId: 2101 } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ success: true, valid: true, game: "moba", playerId: "8812345", zoneId: "2101" });
    expect((await api("/mobavfy", { key, body: { userId: "8812345", zoneId: "north" } })).json.error).toBe("INVALID BODY");
    expect((await api("/mobavfy", { key, body: { userId: "8812345" } })).json.error).toBe("INVALID BODY");
    expect((await api("/mobavfy", { key, body: { userId: "8810404", zoneId: "1" } })).status).toBe(404);
  });
});

describe("POST /rdmbr", () => {
  it("redeems a well-formed code and records it with the code masked", async () => {
    const res = await api("/rdmbr", { key, body: { playerId: "5551234", code: "abcd-efgh-1234", trxid: "r1" } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, redeemed: true, playerId: "5551234", redemptionId: expect.any(Number) });
    const [row] = await sql(`SELECT kind, code_mask, outcome, trxid FROM redemptions WHERE id = $1`, [res.json.redemptionId]);
    expect(row).toEqual({ kind: "redeem-br", code_mask: "ABCD-****-1234", outcome: "redeemed", trxid: "r1" });
  });

  it.each([
    ["BAD0-0000-0000", 400, "INVALID_CODE"],
    ["USED-0000-0000", 409, "CODE_USED"],
  ])("code %s answers %i %s", async (code, status, errorCode) => {
    const res = await api("/rdmbr", { key, body: { playerId: "5551234", code } });
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ success: false, code: errorCode });
  });

  it("validates the code format: groups separated by hyphens", async () => {
    for (const code of ["ABCDEFGH", "ABCD--EFGH", "-ABCD-EFGH", "AB CD-EFGH", "ABCD-EFGH-", "ÄBCD-EFGH", ""]) {
      const res = await api("/rdmbr", { key, body: { playerId: "5551234", code } });
      expect(res.status, code).toBe(400);
      expect(res.json.error, code).toBe("INVALID BODY");
    }
  });

  it("is paused by MAINTENANCE while verification keeps working", async () => {
    await sql(`INSERT INTO settings (key, value) VALUES ('MAINTENANCE', 'true')`);
    try {
      await expect
        .poll(async () => (await api("/rdmbr", { key, body: { playerId: "5551234", code: "ABCD-EFGH" } })).status, { timeout: 5000 })
        .toBe(503);
      expect((await api("/brvvfy", { key, body: { playerId: "5551234" } })).status).toBe(200);
    } finally {
      await sql(`DELETE FROM settings WHERE key = 'MAINTENANCE'`);
    }
  });

  it("records every call for the account", async () => {
    const kinds = await sql(`SELECT DISTINCT kind FROM redemptions WHERE account_id = $1 ORDER BY kind`, [accountId]);
    expect(kinds.map((k) => k.kind)).toEqual(["redeem-br", "verify-br", "verify-moba"]);
  });
});
