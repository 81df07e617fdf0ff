// The per-admin lock on wrong second-factor codes over real HTTP through next-auth, against a server
// of its own that trusts 127.0.0.1 as a proxy (so each request names its client address), with a
// worker process and the local Bot API: wrong codes with the right password from many fresh IPv6
// /64s (each far from its own per-source limits) are checked ten times at most, the right code is
// then refused too, someone without the password learns nothing, and the owners are told in the bot.
import fs from "node:fs";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { closePool } from "@/lib/db/pool";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { SECOND_FACTOR_LOCK } from "@/lib/admin-users/attempt-second-factor";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { signInOverHttp, type SignInAnswer } from "../helpers/admin-session";
import { enableTwoFactor, freshTotpCode, totpCodeAt } from "../helpers/two-factor";
import { FakeTelegram } from "../helpers/fake-telegram";
import { startWorkerProcess } from "../helpers/fault-load";
import { suiteDatabaseUrl } from "../helpers/suite";

const built = fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"));
if (!built) console.log("[second-factor lock] skipped: no Next build (.next); run `npm run build` first");

const EMAIL = "locked-admin@example.com";
const PASSWORD = "the admin's real password";
/** The bootstrap owner's chat (ADMIN_TELEGRAM_IDS). */
const OWNER_CHAT = 777_000_111;
const SOURCES = 40;

/** A six-digit code that is not valid for `secret` anywhere near now. */
function wrongCode(secret: string, n: number): string {
  const now = Math.floor(Date.now() / 30_000);
  const valid = new Set([-2, -1, 0, 1, 2].map((delta) => totpCodeAt(secret, now + delta)));
  for (let k = n + 1; ; k += SOURCES) {
    const code = String(k * 7919)
      .padStart(6, "0")
      .slice(-6);
    if (!valid.has(code)) return code;
  }
}

describe.skipIf(!built)("the per-admin second-factor lock over HTTP", () => {
  let server: { child: ChildProcess; baseUrl: string };
  let worker: ReturnType<typeof startWorkerProcess>;
  let fake: FakeTelegram;
  let secret: string;

  const signIn = (ip: string, password: string, code: string): Promise<SignInAnswer> =>
    signInOverHttp({ email: EMAIL, password, code, base: server.baseUrl, headers: { "x-forwarded-for": ip } });

  beforeAll(async () => {
    await resetDatabase();
    expect((await createAdminUser({ email: EMAIL, password: PASSWORD, role: "operator", actor: "test" })).status).toBe(
      "created",
    );
    ({ secret } = await enableTwoFactor(EMAIL));
    fake = await FakeTelegram.start();
    const telegram = {
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_ROOT: fake.apiRoot,
      ADMIN_TELEGRAM_IDS: String(OWNER_CHAT),
    };
    const databaseUrl = suiteDatabaseUrl();
    server = await startServer({ ...TEST_ENV, DATABASE_URL: databaseUrl, TRUSTED_PROXIES: "127.0.0.1", ...telegram });
    worker = startWorkerProcess({ DATABASE_URL: databaseUrl, ...telegram });
    await worker.ready;
  });
  afterAll(async () => {
    server?.child.kill("SIGKILL");
    worker?.child.kill("SIGKILL");
    await fake?.close();
    await closePool();
    await closeSql();
  });

  it("checks at most ten wrong codes whatever the number of /64s, refuses the right code, and tells the owners", async () => {
    // Two at a time, as many as the server checks passwords at once: none is answered "busy".
    const answers: string[] = [];
    for (let i = 0; i < SOURCES; i += 2)
      for (const answer of await Promise.all(
        [i, i + 1].map((n) => signIn(`2001:db8:5:${n.toString(16)}::1`, PASSWORD, wrongCode(secret, n))),
      ))
        answers.push(answer.error);
    expect(answers.filter((error) => error === "CredentialsSignin")).toHaveLength(SECOND_FACTOR_LOCK.maxWrong);
    expect(answers.filter((error) => error === "SIGN_IN_SECOND_FACTOR_LOCKED")).toHaveLength(
      SOURCES - SECOND_FACTOR_LOCK.maxWrong,
    );
    expect(
      await sqlRow(
        `SELECT count(*)::int AS wrong, count(DISTINCT source)::int AS sources FROM admin_second_factor_failures`,
      ),
    ).toEqual({ wrong: SECOND_FACTOR_LOCK.maxWrong, sources: SECOND_FACTOR_LOCK.maxWrong });

    // The right code, from a /64 not seen before: refused while locked, and not used up.
    const before = await sqlRow(`SELECT totp_last_step FROM admin_users WHERE email = $1`, [EMAIL]);
    const code = await freshTotpCode(EMAIL, secret);
    expect(await signIn("2001:db8:6::1", PASSWORD, code)).toEqual({
      status: 401,
      error: "SIGN_IN_SECOND_FACTOR_LOCKED",
      sessionCookie: undefined,
    });
    expect(await sqlRow(`SELECT totp_last_step FROM admin_users WHERE email = $1`, [EMAIL])).toEqual(before);
    // Without the password the lock is not even seen: the usual answer.
    expect((await signIn("2001:db8:7::1", "not the password", code)).error).toBe("CredentialsSignin");

    // The owners' message, sent by the worker to the bootstrap owner through the Bot API.
    await expect
      .poll(() => fake.textsTo(OWNER_CHAT), { timeout: 30_000, interval: 100 })
      .toEqual([expect.stringContaining(`${EMAIL}: 10 wrong two-factor codes within 15 minutes, from 10 sources`)]);
    expect(await sql(`SELECT target_id FROM audit_log WHERE action = 'admin_user.second_factor_locked'`)).toHaveLength(
      1,
    );
  });
});
