// A flood of dashboard sign-ins against a server of its own, over real HTTP through next-auth's
// CSRF flow, while a client keeps calling GET /balance. The API must keep answering; the flood
// must be throttled (backoff), locked out (audited) and, past the bounded scrypt queue, refused
// at once. Latencies are printed, not asserted: this machine's speed is not the subject.
import fs from "node:fs";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { closePool } from "@/lib/db/pool";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { SIGN_IN_POLICIES } from "@/lib/admin-sign-in/sign-in-throttle";
import { closeSql, resetDatabase, sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { suiteDatabaseUrl } from "../helpers/suite";

const built = fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"));
if (!built)
  console.log("[sign-in flood] skipped: no Next build (.next); run without SKIP_BUILD so `next build` runs first");

const TARGET = "flood-target@example.com";
const TARGET_PASSWORD = "the target's real password";
const OTHER = "other-admin@example.com";
const OTHER_PASSWORD = "another admin's password";

interface SignInAnswer {
  status: number;
  /** next-auth's `error` (CredentialsSignin for a wrong password), or "" when signed in. */
  error: string;
  sessionCookie: boolean;
}

function percentile(sorted: number[], fraction: number): number | undefined {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `n=${sorted.length} min=${sorted[0]?.toFixed(1)} p50=${percentile(sorted, 0.5)?.toFixed(1)} p95=${percentile(sorted, 0.95)?.toFixed(1)} max=${sorted.at(-1)?.toFixed(1)} ms`;
}

describe.skipIf(!built)("a sign-in flood", () => {
  let server: { child: ChildProcess; baseUrl: string };
  let csrf: { token: string; cookie: string };
  let apiKey: string;

  beforeAll(async () => {
    await resetDatabase();
    for (const [email, password] of [
      [TARGET, TARGET_PASSWORD],
      [OTHER, OTHER_PASSWORD],
    ] as const) {
      expect((await createAdminUser({ email, password, role: "owner", actor: "test" })).status).toBe("created");
    }
    apiKey = (await createAccount({ balanceCents: 1_234 })).key;
    // A server of its own: the throttle's memory is per process, and this one trusts 127.0.0.1 as
    // a proxy so each request can name its client address in X-Forwarded-For.
    server = await startServer({ ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl(), TRUSTED_PROXIES: "127.0.0.1" });
    // next-auth's double-submit CSRF token: the cookie and the form field must match.
    const res = await fetch(`${server.baseUrl}/api/auth/csrf`);
    const { csrfToken } = (await res.json()) as { csrfToken: string };
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith("next-auth.csrf-token="))!
      .split(";")[0]!;
    csrf = { token: csrfToken, cookie };
  });
  afterAll(async () => {
    server?.child.kill("SIGKILL");
    await closePool();
    await closeSql();
  });

  async function signIn(email: string, password: string, clientIp: string): Promise<SignInAnswer> {
    const res = await fetch(`${server.baseUrl}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: csrf.cookie,
        "x-forwarded-for": clientIp,
      },
      body: new URLSearchParams({
        csrfToken: csrf.token,
        email,
        password,
        json: "true",
        callbackUrl: `${server.baseUrl}/admin`,
      }),
    });
    const body = (await res.json()) as { url: string };
    return {
      status: res.status,
      error: new URL(body.url).searchParams.get("error") ?? "",
      sessionCookie: res.headers.getSetCookie().some((c) => c.startsWith("next-auth.session-token=")),
    };
  }

  async function timedBalance(): Promise<{ status: number; ms: number; body: string }> {
    const started = performance.now();
    const res = await fetch(`${server.baseUrl}/balance`, { headers: { "x-api-key": apiKey } });
    const body = await res.text();
    return { status: res.status, ms: performance.now() - started, body };
  }

  it("keeps /balance answering while the flood is throttled, locked out and refused", async () => {
    // Before the flood, for comparison in the output.
    const before: number[] = [];
    for (let i = 0; i < 20; i++) before.push((await timedBalance()).ms);

    // The flood: one address trying a new email each time, and 40 addresses guessing the target's
    // password among guesses at other emails; 40 requests in flight at any time.
    const attempts: { email: string; ip: string }[] = [];
    for (let i = 0; i < 400; i++) {
      if (i % 4 === 0) attempts.push({ email: `spray${i}@example.com`, ip: "203.0.113.66" });
      else attempts.push({ email: i % 3 === 0 ? TARGET : `guess${i}@example.com`, ip: `198.51.100.${i % 40}` });
    }
    const answers: (SignInAnswer & { email: string; ip: string })[] = [];
    let flooding = true;
    const flood = (async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 40 }, async () => {
          while (next < attempts.length) {
            const attempt = attempts[next++]!;
            answers.push({ ...attempt, ...(await signIn(attempt.email, `wrong password ${next}`, attempt.ip)) });
          }
        }),
      );
      flooding = false;
    })();
    const during: { status: number; ms: number; body: string }[] = [];
    while (flooding) during.push(await timedBalance());
    await flood;

    const counts: Record<string, number> = {};
    for (const answer of answers) counts[answer.error || "signed in"] = (counts[answer.error || "signed in"] ?? 0) + 1;
    console.log(`[sign-in flood] /balance before the flood: ${summary(before)}`);
    console.log(`[sign-in flood] /balance during the flood: ${summary(during.map((d) => d.ms))}`);
    console.log(`[sign-in flood] ${answers.length} sign-in answers: ${JSON.stringify(counts)}`);

    // The API answered every call made during the flood.
    expect(during.length).toBeGreaterThan(0);
    expect(during.filter((d) => d.status !== 200)).toEqual([]);

    // Every flood answer is a refusal; none got in, none was a server error. next-auth refuses
    // with 401; the host's gate in front of Next answers 503 "busy" when too many are in flight.
    expect(answers).toHaveLength(attempts.length);
    expect(
      answers.filter((a) => !(a.status === 401 || (a.status === 503 && a.error === "SIGN_IN_BUSY")) || a.sessionCookie),
    ).toEqual([]);
    expect(new Set(Object.keys(counts))).toSatisfy((keys: Set<string>) =>
      [...keys].every((key) =>
        ["CredentialsSignin", "SIGN_IN_THROTTLED", "SIGN_IN_LOCKED", "SIGN_IN_BUSY"].includes(key),
      ),
    );
    expect(counts.SIGN_IN_LOCKED).toBeGreaterThan(0);
    // However fast or slow the machine, the target's password and the spraying address were
    // checked at most as often as their lockouts allow.
    const checked = (match: (a: { email: string; ip: string }) => boolean) =>
      answers.filter((a) => match(a) && a.error === "CredentialsSignin").length;
    // An email is counted per source: from each address at most as often as its lockout allows.
    for (let i = 0; i < 40; i++) {
      const ip = `198.51.100.${i}`;
      expect(checked((a) => a.email === TARGET && a.ip === ip)).toBeLessThanOrEqual(SIGN_IN_POLICIES.email.lockAfter);
    }
    expect(checked((a) => a.ip === "203.0.113.66")).toBeLessThanOrEqual(SIGN_IN_POLICIES.ip.lockAfter);
    expect(answers.filter((a) => a.ip === "203.0.113.66" && a.error === "SIGN_IN_LOCKED").length).toBeGreaterThan(0);

    // Guesses at the target from one fresh address lock the target from that address, at most as
    // many as its lockout allows (waiting out the backoff would take minutes: throttled ones count).
    const guesses: string[] = [];
    for (let i = 0; i <= 2 * SIGN_IN_POLICIES.email.lockAfter && guesses.at(-1) !== "SIGN_IN_LOCKED"; i++) {
      guesses.push((await signIn(TARGET, `another wrong guess ${i}`, "192.0.2.100")).error);
    }
    console.log(`[sign-in flood] guesses at the target after the flood: ${JSON.stringify(guesses)}`);
    expect(guesses.at(-1)).toBe("SIGN_IN_LOCKED");

    // The lockouts are audited: the target email and the spraying address.
    const lockouts = await sql(
      `SELECT target_type, target_id, details FROM audit_log WHERE action = 'admin.sign_in_lockout' ORDER BY id`,
    );
    expect(lockouts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ target_type: "admin_email", target_id: TARGET }),
        expect.objectContaining({ target_type: "client_ip", target_id: "203.0.113.66" }),
      ]),
    );

    // The target stays locked from that address even with the right password, but the lockout is
    // that source's, not the account's: the real admin from elsewhere signs in.
    expect(await signIn(TARGET, TARGET_PASSWORD, "192.0.2.100")).toMatchObject({
      status: 401,
      error: "SIGN_IN_LOCKED",
      sessionCookie: false,
    });
    expect(await signIn(TARGET, TARGET_PASSWORD, "192.0.2.10")).toMatchObject({
      status: 200,
      error: "",
      sessionCookie: true,
    });
    expect(await signIn(OTHER, OTHER_PASSWORD, "192.0.2.11")).toMatchObject({
      status: 200,
      error: "",
      sessionCookie: true,
    });
    // And the guessing address is locked for every email, the right password included.
    expect(await signIn(OTHER, OTHER_PASSWORD, "203.0.113.66")).toMatchObject({ status: 401, error: "SIGN_IN_LOCKED" });
  });
});
