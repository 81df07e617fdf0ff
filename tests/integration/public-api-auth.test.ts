// For every public route: each authentication and access failure is caused
// by the request that causes it, and answers the catalogue's status, error and code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publicRoutes } from "@/app/api/public-routes";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { useCleanDatabase } from "../helpers/clean-database";

type Account = Awaited<ReturnType<typeof createAccount>>;
let healthy: Account;

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  healthy = await createAccount({ balanceCents: 500 });
});

/** Every public route with a request that would otherwise be valid enough to reach its handler. */
const routes = publicRoutes.map((route) => ({
  method: route.spec.method,
  path: route.spec.path.replace(":orderId", "1"),
  name: `${route.spec.method} ${route.spec.path}`,
  // GET /my-ip answers past the allowlist: it is how a caller learns the address to add.
  checksIpAllowlist: route.spec.ipAllowlist !== false,
}));

function call(
  route: (typeof routes)[number],
  key: string | undefined,
  headers: Record<string, string> = {},
  prefix = "",
) {
  return api(prefix + route.path, {
    method: route.method,
    key,
    headers: { ...headers },
    ...(route.method === "POST" ? { body: {} } : {}),
  });
}

async function accountWith(update: string, params: unknown[] = []) {
  const account = await createAccount();
  await sql(`UPDATE accounts SET ${update} WHERE id = $1`, [account.accountId, ...params]);
  return account;
}

describe.each(routes)("$name", (route) => {
  it.each(["", "/api"])("answers 401 MISSING_API_KEY without a key (prefix %j)", async (prefix) => {
    const res = await call(route, undefined, {}, prefix);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ success: false, code: "MISSING_API_KEY", error: expect.any(String) });
  });

  it("answers 401 MISSING_API_KEY for an Authorization header that is not Bearer", async () => {
    const res = await call(route, undefined, { authorization: `Basic ${healthy.key}` });
    expect(res.json.code).toBe("MISSING_API_KEY");
  });

  it.each([
    "short",
    "svc_" + "a".repeat(39),
    "svc_" + "a".repeat(41),
    "key_" + "a".repeat(40),
    "svc_" + "!".repeat(40),
    "svc_test_" + "a".repeat(39),
    "svc_test" + "a".repeat(40),
    "svc_live_" + "a".repeat(40),
  ])("answers 401 INVALID_API_KEY_FORMAT for %j", async (bad) => {
    const res = await call(route, bad);
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ success: false, code: "INVALID_API_KEY_FORMAT" });
  });

  it("answers 401 INVALID_API_KEY for a well-formed unknown key, and for a revoked key", async () => {
    const unknown = await call(route, "svc_" + "Z".repeat(40));
    expect(unknown.status).toBe(401);
    expect(unknown.json).toMatchObject({ success: false, code: "INVALID_API_KEY" });
    // A test key's format is well formed too: unknown, not malformed.
    expect((await call(route, "svc_test_" + "Z".repeat(40))).json.code).toBe("INVALID_API_KEY");
    const revoked = await createAccount();
    await sql(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [revoked.keyId]);
    expect((await call(route, revoked.key)).json.code).toBe("INVALID_API_KEY");
  });

  it("accepts the key as Authorization: Bearer too", async () => {
    const res = await call(route, undefined, { authorization: `Bearer ${healthy.key}` });
    expect(res.status).not.toBe(401);
    expect(res.status).not.toBe(403);
  });

  it("answers 403 API_DISABLED when the holder has not turned API access on", async () => {
    const account = await accountWith("api_enabled = false");
    const res = await call(route, account.key);
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ success: false, code: "API_DISABLED" });
  });

  it("answers 403 API_DISABLED_BY_ADMIN when an admin blocked the account", async () => {
    const res = await call(route, (await accountWith("api_disabled_by_admin = true")).key);
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ success: false, code: "API_DISABLED_BY_ADMIN" });
  });

  it("answers 403 ACCOUNT_BANNED for a banned account, before any other state", async () => {
    const res = await call(
      route,
      (await accountWith("banned_at = now(), api_enabled = false, api_disabled_by_admin = true")).key,
    );
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ success: false, code: "ACCOUNT_BANNED" });
  });

  it("answers 403 ACCOUNT_RESTRICTED and says until when; an expired restriction no longer applies", async () => {
    const until = new Date(Date.now() + 3_600_000);
    const res = await call(route, (await accountWith("restricted_until = $2", [until])).key);
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      success: false,
      code: "ACCOUNT_RESTRICTED",
      restrictedUntil: until.toISOString(),
    });
    expect(res.json.error).toContain(until.toISOString());
    const expired = await call(route, (await accountWith("restricted_until = now() - interval '1 minute'")).key);
    expect(expired.json.code).not.toBe("ACCOUNT_RESTRICTED");
  });

  it("answers 403 IP_ALLOWLIST_REQUIRED when the key requires a list and it is empty (GET /my-ip answers)", async () => {
    const account = await createAccount();
    await sql(`UPDATE api_keys SET require_ip_allowlist = true WHERE id = $1`, [account.keyId]);
    const res = await call(route, account.key);
    if (!route.checksIpAllowlist) {
      expect(res.status).toBe(200);
      return;
    }
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ success: false, code: "IP_ALLOWLIST_REQUIRED" });
  });

  it("answers 403 IP_NOT_ALLOWED from an address outside the list, and serves an address inside it", async () => {
    // Funded: the supplier-backed routes refuse a never-funded account (SUPPLIER_CALLS_REQUIRE_FUNDING).
    const account = await createAccount({ balanceCents: 100 });
    await sql(`INSERT INTO ip_allow_entries (api_key_id, cidr) VALUES ($1, '203.0.113.0/24')`, [account.keyId]);
    const refused = await call(route, account.key);
    if (!route.checksIpAllowlist) {
      expect(refused.status).toBe(200);
      return;
    }
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ success: false, code: "IP_NOT_ALLOWED" });
    // A forged X-Forwarded-For from an untrusted peer does not pass the list.
    const forged = await call(route, account.key, { "x-forwarded-for": "203.0.113.9" });
    expect(forged.json.code).toBe("IP_NOT_ALLOWED");
    await sql(`INSERT INTO ip_allow_entries (api_key_id, cidr) VALUES ($1, '127.0.0.0/8')`, [account.keyId]);
    const allowed = await call(route, account.key);
    expect(allowed.status).not.toBe(403);
  });
});

describe("API_NOT_ELIGIBLE", () => {
  afterAll(() => sql(`DELETE FROM settings WHERE key = 'API_ELIGIBILITY'`));

  it("applies only while the eligibility rule is enabled", async () => {
    const poor = await createAccount({ balanceCents: 100 });
    const rich = await createAccount({ balanceCents: 5000 });
    expect((await api("/balance", { key: poor.key })).status).toBe(200);
    await sql(`INSERT INTO settings (key, value) VALUES ('API_ELIGIBILITY', $1)`, [
      JSON.stringify({ enabled: true, minTotalCreditedCents: 1000 }),
    ]);
    await expect
      .poll(async () => (await api("/balance", { key: poor.key })).json, { timeout: 5000 })
      .toMatchObject({
        success: false,
        code: "API_NOT_ELIGIBLE",
      });
    expect((await api("/balance", { key: poor.key })).status).toBe(403);
    expect((await api("/balance", { key: rich.key })).status).toBe(200);
    await sql(`UPDATE settings SET value = $1 WHERE key = 'API_ELIGIBILITY'`, [
      JSON.stringify({ enabled: false, minTotalCreditedCents: 1000 }),
    ]);
    await expect.poll(async () => (await api("/balance", { key: poor.key })).status, { timeout: 5000 }).toBe(200);
  });
});

describe("last_used_at", () => {
  it("is stamped within seconds of a use, and never on another key that took a used key's id", async () => {
    const watched = await createAccount();
    const replaced = await createAccount();
    expect((await api("/balance", { key: watched.key })).status).toBe(200);
    expect((await api("/balance", { key: replaced.key })).status).toBe(200);
    // Before the batched stamp is written, the used key's row is replaced by another key with the
    // same id (as the suite's RESTART IDENTITY between files does): the stamp must not land on it.
    const old = await sqlRow(`DELETE FROM api_keys WHERE id = $1 RETURNING account_id, created_at`, [replaced.keyId]);
    await sql(
      `INSERT INTO api_keys (id, account_id, key_hash, prefix, created_at) VALUES ($1, $2, $3, 'svc_newkey00', $4::timestamptz + interval '1 second')`,
      [replaced.keyId, old.account_id, "f".repeat(64), old.created_at],
    );
    // The same flush stamps the key still in place: once it has, the replacement must be untouched.
    await expect
      .poll(
        async () => (await sqlRow(`SELECT last_used_at FROM api_keys WHERE id = $1`, [watched.keyId])).last_used_at,
        { timeout: 30_000, interval: 200 },
      )
      .not.toBeNull();
    expect((await sqlRow(`SELECT last_used_at FROM api_keys WHERE id = $1`, [replaced.keyId])).last_used_at).toBeNull();
  });
});
