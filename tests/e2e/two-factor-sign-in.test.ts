// Two-factor sign-in over real HTTP through next-auth, against a server of its own (the sign-in
// throttle's memory is per process) that trusts 127.0.0.1 as a proxy, so each request names its
// client address. An admin with two-factor on needs a code besides the password; a missing or wrong
// code fails like a wrong password and counts toward the same throttle; a code is accepted once; a
// recovery code signs in once.
import fs from "node:fs";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { closePool } from "@/lib/db/pool";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { SIGN_IN_POLICIES } from "@/lib/admin-sign-in/sign-in-throttle";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { signInOverHttp, type SignInAnswer } from "../helpers/admin-session";
import { enableTwoFactor, freshTotpCode, totpCodeAt } from "../helpers/two-factor";
import { suiteDatabaseUrl } from "../helpers/suite";

const built = fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"));
if (!built) console.log("[two-factor sign-in] skipped: no Next build (.next); run `npm run build` first");

const EMAIL = "two-factor@example.com";
const PASSWORD = "the admin's real password";

/** A six-digit code that is not valid for `secret` anywhere near now. */
function wrongCode(secret: string): string {
  const now = Math.floor(Date.now() / 30_000);
  const valid = new Set([-2, -1, 0, 1, 2].map((delta) => totpCodeAt(secret, now + delta)));
  for (let n = 0; ; n++) {
    const code = String(n * 7919)
      .padStart(6, "0")
      .slice(-6);
    if (!valid.has(code)) return code;
  }
}

describe.skipIf(!built)("two-factor sign-in", () => {
  let server: { child: ChildProcess; baseUrl: string };
  let secret: string;
  let recoveryCodes: string[];

  const signIn = (ip: string, password: string, code?: string): Promise<SignInAnswer> =>
    signInOverHttp({ email: EMAIL, password, code, base: server.baseUrl, headers: { "x-forwarded-for": ip } });

  beforeAll(async () => {
    await resetDatabase();
    expect((await createAdminUser({ email: EMAIL, password: PASSWORD, role: "owner", actor: "test" })).status).toBe(
      "created",
    );
    ({ secret, recoveryCodes } = await enableTwoFactor(EMAIL));
    server = await startServer({ ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl(), TRUSTED_PROXIES: "127.0.0.1" });
  });
  afterAll(async () => {
    server?.child.kill("SIGKILL");
    await closePool();
    await closeSql();
  });

  it("needs the code besides the password, answers every failure alike, and accepts a code once", async () => {
    const refused = { status: 401, error: "CredentialsSignin", sessionCookie: undefined };
    // Each from an address of its own: this test is about the answers, the next one about the throttle.
    expect(await signIn("192.0.2.1", PASSWORD)).toEqual(refused);
    expect(await signIn("192.0.2.2", PASSWORD, "")).toEqual(refused);
    expect(await signIn("192.0.2.3", PASSWORD, wrongCode(secret))).toEqual(refused);
    const code = await freshTotpCode(EMAIL, secret);
    // A right code with a wrong password: the same answer, and the code is not used up.
    expect(await signIn("192.0.2.4", "not the password", code)).toEqual(refused);
    expect((await sqlRow(`SELECT last_login_at FROM admin_users WHERE email = $1`, [EMAIL])).last_login_at).toBeNull();

    const signedIn = await signIn("192.0.2.4", PASSWORD, code);
    expect(signedIn).toMatchObject({ status: 200, error: "" });
    expect(signedIn.sessionCookie).toMatch(/^next-auth\.session-token=/);
    expect(
      (await sqlRow(`SELECT last_login_at FROM admin_users WHERE email = $1`, [EMAIL])).last_login_at,
    ).not.toBeNull();

    // The same code again, from anywhere, within its window: refused.
    expect(await signIn("192.0.2.5", PASSWORD, code)).toEqual(refused);
  });

  it("counts a wrong code toward the sign-in throttle like a wrong password", async () => {
    const answers: string[] = [];
    // Right password, wrong code, from one address, until that address is locked out for this email
    // (throttled attempts count toward the lockout too, so no backoff needs waiting out).
    for (let i = 0; i < 2 * SIGN_IN_POLICIES.email.lockAfter && answers.at(-1) !== "SIGN_IN_LOCKED"; i++)
      answers.push((await signIn("198.51.100.7", PASSWORD, wrongCode(secret))).error);
    expect(answers.slice(0, SIGN_IN_POLICIES.email.free)).toEqual(
      Array(SIGN_IN_POLICIES.email.free).fill("CredentialsSignin"),
    );
    expect(answers.at(-1)).toBe("SIGN_IN_LOCKED");
    expect(answers.length).toBeLessThanOrEqual(SIGN_IN_POLICIES.email.lockAfter + 1);
    // Now even the right code is refused from that address, without being checked (or used up)...
    const code = await freshTotpCode(EMAIL, secret);
    expect(await signIn("198.51.100.7", PASSWORD, code)).toEqual({
      status: 401,
      error: "SIGN_IN_LOCKED",
      sessionCookie: undefined,
    });
    // ...and from another address the same code signs in.
    expect((await signIn("198.51.100.8", PASSWORD, code)).sessionCookie).toBeDefined();
    const lockout = await sql(
      `SELECT target_type, target_id, details FROM audit_log WHERE action = 'admin.sign_in_lockout'`,
    );
    expect(lockout).toEqual([
      expect.objectContaining({
        target_type: "admin_email",
        target_id: EMAIL,
        details: expect.objectContaining({ clientIp: "198.51.100.7" }),
      }),
    ]);
  });

  it("signs in once with each recovery code, and audits its use", async () => {
    const [first, second] = recoveryCodes;
    expect(recoveryCodes).toHaveLength(10);
    // Typed in lower case without dashes: still the code.
    expect(
      (await signIn("203.0.113.5", PASSWORD, first!.toLowerCase().replaceAll("-", ""))).sessionCookie,
    ).toBeDefined();
    expect(await signIn("203.0.113.5", PASSWORD, first)).toMatchObject({ status: 401, error: "CredentialsSignin" });
    expect((await signIn("203.0.113.5", PASSWORD, second)).sessionCookie).toBeDefined();
    expect(
      await sql(`SELECT actor, details FROM audit_log WHERE action = 'admin_user.recovery_code_used' ORDER BY id`),
    ).toEqual([
      { actor: `admin:${EMAIL}`, details: { email: EMAIL, left: 9 } },
      { actor: `admin:${EMAIL}`, details: { email: EMAIL, left: 8 } },
    ]);
    // Stored as digests only.
    const stored = await sql<{ code_hash: string }>(`SELECT code_hash FROM admin_recovery_codes`);
    expect(stored).toHaveLength(10);
    for (const code of recoveryCodes)
      for (const row of stored) expect(row.code_hash).not.toContain(code.replaceAll("-", ""));
  });
});
