// The per-admin lock on wrong second-factor codes, through lib/admin-users on the real database:
// wrong codes from any sources count against the admin, parallel guesses cannot pass the limit,
// a right code is refused while locked, and the lock lifts when the window has passed. Turning
// two-factor off (password and code, counted) and new recovery codes (old ones stop working). The
// owners' message goes out through a worker process and a local Bot API, as the service sends it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { verifyAdminPassword } from "@/lib/admin-users/verify-admin-password";
import { attemptSecondFactor, SECOND_FACTOR_LOCK } from "@/lib/admin-users/attempt-second-factor";
import { checkSecondFactor } from "@/lib/admin-users/check-second-factor";
import { turnOffTwoFactor } from "@/lib/admin-users/turn-off-two-factor";
import { regenerateRecoveryCodes } from "@/lib/admin-users/regenerate-recovery-codes";
import { useCleanDatabase } from "../helpers/clean-database";
import { sql, sqlRow } from "../helpers/db";
import { FakeTelegram } from "../helpers/fake-telegram";
import { startNoticeWorker, type NoticeWorker } from "../helpers/bot-notices";
import { enableTwoFactor, freshTotpCode, totpCodeAt } from "../helpers/two-factor";

useCleanDatabase({ catalog: false });

/** The bootstrap owner's chat (ADMIN_TELEGRAM_IDS): no owner is linked to Telegram here. */
const OWNER_CHAT = 777_000_222;
let fake: FakeTelegram;
let notices: NoticeWorker;

beforeAll(async () => {
  fake = await FakeTelegram.start();
  notices = await startNoticeWorker(fake, OWNER_CHAT);
});
afterAll(async () => {
  await notices?.stop();
  await fake?.close();
});

const PASSWORD = "a long enough test password";

async function newTwoFactorAdmin(email: string) {
  const created = await createAdminUser({ email, password: PASSWORD, role: "operator", actor: "test" });
  if (created.status !== "created") throw new Error(created.status);
  return { id: created.admin.id, ...(await enableTwoFactor(email)) };
}

/** A six-digit code that is not valid for `secret` anywhere near now. */
function wrongCode(secret: string): string {
  const now = Math.floor(Date.now() / 30_000);
  const valid = new Set([-2, -1, 0, 1, 2].map((delta) => totpCodeAt(secret, now + delta)));
  for (let n = 1; ; n++) {
    const code = String(n * 7919)
      .padStart(6, "0")
      .slice(-6);
    if (!valid.has(code)) return code;
  }
}

/** Ages the admin's recorded wrong codes past the window, as if it had passed. */
async function pastTheWindow(adminId: number) {
  await sql(
    `UPDATE admin_second_factor_failures SET failed_at = failed_at - make_interval(secs => $2)
      WHERE admin_user_id = $1`,
    [adminId, SECOND_FACTOR_LOCK.windowMs / 1000 + 1],
  );
}

async function wrongCount(adminId: number): Promise<number> {
  return (
    await sqlRow<{ n: number }>(
      `SELECT count(*)::int AS n FROM admin_second_factor_failures WHERE admin_user_id = $1`,
      [adminId],
    )
  ).n;
}

describe("the per-admin lock on wrong second-factor codes", () => {
  it("locks after ten wrong codes from ten sources, refuses the right code while locked, and lifts after the window", async () => {
    const email = "lock-a@example.com";
    const admin = await newTwoFactorAdmin(email);
    for (let i = 0; i < SECOND_FACTOR_LOCK.maxWrong; i++)
      expect(
        await verifyAdminPassword(email, PASSWORD, wrongCode(admin.secret), `2001:db8:${i}:1::/64`),
      ).toBeUndefined();
    expect(await wrongCount(admin.id)).toBe(SECOND_FACTOR_LOCK.maxWrong);

    // The right code, from yet another source: refused without being checked (so not used up).
    const before = await sqlRow(`SELECT totp_last_step FROM admin_users WHERE id = $1`, [admin.id]);
    const code = await freshTotpCode(email, admin.secret);
    const locked = await verifyAdminPassword(email, PASSWORD, code, "2001:db8:99:1::/64");
    expect(locked).toMatchObject({ secondFactorLocked: true });
    const { retryAfterSeconds } = locked as { retryAfterSeconds: number };
    expect(retryAfterSeconds).toBeGreaterThan(0);
    expect(retryAfterSeconds).toBeLessThanOrEqual(SECOND_FACTOR_LOCK.windowMs / 1000);
    expect(await sqlRow(`SELECT totp_last_step FROM admin_users WHERE id = $1`, [admin.id])).toEqual(before);
    // A recovery code is refused alike; a wrong password tells nothing about the lock.
    expect(await verifyAdminPassword(email, PASSWORD, admin.recoveryCodes[0], "192.0.2.7")).toMatchObject({
      secondFactorLocked: true,
    });
    expect(await verifyAdminPassword(email, "not the password", code, "192.0.2.7")).toBeUndefined();
    expect(await wrongCount(admin.id)).toBe(SECOND_FACTOR_LOCK.maxWrong);

    // Audited once, and the owners told once, in the bot, naming the admin and the sources.
    expect(
      await sql(`SELECT actor, target_id, details FROM audit_log WHERE action = 'admin_user.second_factor_locked'`),
    ).toEqual([
      {
        actor: "system",
        target_id: String(admin.id),
        details: expect.objectContaining({ email, wrongCodes: 10, sources: 10 }),
      },
    ]);
    await notices.allSent();
    expect(notices.textsTo(OWNER_CHAT)).toEqual([
      expect.stringContaining(`${email}: 10 wrong two-factor codes within 15 minutes, from 10 sources`),
    ]);

    await pastTheWindow(admin.id);
    expect(await verifyAdminPassword(email, PASSWORD, code, "192.0.2.7")).toMatchObject({ email });
    expect(await wrongCount(admin.id)).toBe(0);
  });

  it("checks at most ten wrong codes however many arrive at once", async () => {
    const admin = await newTwoFactorAdmin("lock-b@example.com");
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        attemptSecondFactor({ adminId: admin.id, source: `2001:db8:b:${i}::/64` }, (tx) =>
          checkSecondFactor(admin.id, wrongCode(admin.secret), tx),
        ),
      ),
    );
    expect(answers.filter((a) => a.status === "wrong")).toHaveLength(SECOND_FACTOR_LOCK.maxWrong);
    expect(answers.filter((a) => a.status === "locked")).toHaveLength(40 - SECOND_FACTOR_LOCK.maxWrong);
    expect(await wrongCount(admin.id)).toBe(SECOND_FACTOR_LOCK.maxWrong);
    expect(
      (await sqlRow(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'admin_user.second_factor_locked'`)).n,
    ).toBe(2);
    await notices.allSent();
    expect(notices.textsTo(OWNER_CHAT).filter((text) => text.includes("lock-b@example.com"))).toHaveLength(1);
  });

  it("gives a right code back: only wrong ones count", async () => {
    const email = "lock-c@example.com";
    const admin = await newTwoFactorAdmin(email);
    for (let i = 0; i < SECOND_FACTOR_LOCK.maxWrong - 1; i++)
      await verifyAdminPassword(email, PASSWORD, wrongCode(admin.secret), "192.0.2.9");
    expect(await verifyAdminPassword(email, PASSWORD, admin.recoveryCodes[0], "192.0.2.9")).toMatchObject({ email });
    // Nine wrong: the tenth is still checked (and locks).
    expect(await verifyAdminPassword(email, PASSWORD, wrongCode(admin.secret), "192.0.2.9")).toBeUndefined();
    expect(await verifyAdminPassword(email, PASSWORD, admin.recoveryCodes[1], "192.0.2.9")).toMatchObject({
      secondFactorLocked: true,
    });
  });
});

describe("turning two-factor off", () => {
  it("needs the password and a right code; a wrong one of either is refused and counted", async () => {
    const email = "off-a@example.com";
    const admin = await newTwoFactorAdmin(email);
    const input = { adminId: admin.id, actor: `admin:${email}`, source: "192.0.2.20" };
    const code = await freshTotpCode(email, admin.secret);
    expect(await turnOffTwoFactor({ ...input, password: "not the password", code })).toEqual({
      status: "wrong_password",
    });
    expect(await turnOffTwoFactor({ ...input, password: PASSWORD, code: wrongCode(admin.secret) })).toEqual({
      status: "wrong_code",
    });
    expect(await wrongCount(admin.id)).toBe(2);
    expect(
      (await sqlRow(`SELECT totp_enabled_at FROM admin_users WHERE id = $1`, [admin.id])).totp_enabled_at,
    ).not.toBeNull();
    // The right code was not used up by the wrong password.
    expect(await turnOffTwoFactor({ ...input, password: PASSWORD, code })).toEqual({ status: "off" });
    expect(await sqlRow(`SELECT totp_secret, totp_enabled_at FROM admin_users WHERE id = $1`, [admin.id])).toEqual({
      totp_secret: null,
      totp_enabled_at: null,
    });
    expect(await sql(`SELECT details FROM audit_log WHERE action = 'admin_user.two_factor_off'`)).toEqual([
      { details: { email, with: "totp" } },
    ]);
  });

  it("is refused while the second step is locked, whatever is typed", async () => {
    const email = "off-b@example.com";
    const admin = await newTwoFactorAdmin(email);
    const input = { adminId: admin.id, actor: `admin:${email}`, source: "192.0.2.21" };
    for (let i = 0; i < SECOND_FACTOR_LOCK.maxWrong; i++)
      expect((await turnOffTwoFactor({ ...input, password: PASSWORD, code: wrongCode(admin.secret) })).status).toBe(
        "wrong_code",
      );
    expect(await turnOffTwoFactor({ ...input, password: PASSWORD, code: admin.recoveryCodes[0]! })).toMatchObject({
      status: "locked",
    });
    expect(
      (await sqlRow(`SELECT totp_enabled_at FROM admin_users WHERE id = $1`, [admin.id])).totp_enabled_at,
    ).not.toBeNull();
  });
});

describe("new recovery codes", () => {
  it("need a right code; the old codes stop working and the new ones sign in once", async () => {
    const email = "codes-a@example.com";
    const admin = await newTwoFactorAdmin(email);
    const input = { adminId: admin.id, actor: `admin:${email}`, source: "192.0.2.30" };
    const hashesBefore = await sql(`SELECT code_hash FROM admin_recovery_codes WHERE admin_user_id = $1`, [admin.id]);
    expect(await regenerateRecoveryCodes({ ...input, code: wrongCode(admin.secret) })).toEqual({
      status: "wrong_code",
    });
    expect(await wrongCount(admin.id)).toBe(1);
    expect(await sql(`SELECT code_hash FROM admin_recovery_codes WHERE admin_user_id = $1`, [admin.id])).toEqual(
      hashesBefore,
    );

    const result = await regenerateRecoveryCodes({ ...input, code: await freshTotpCode(email, admin.secret) });
    expect(result.status).toBe("regenerated");
    const fresh = (result as { recoveryCodes: string[] }).recoveryCodes;
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((code) => admin.recoveryCodes.includes(code))).toEqual([]);
    expect(await verifyAdminPassword(email, PASSWORD, admin.recoveryCodes[1], "192.0.2.30")).toBeUndefined();
    expect(await verifyAdminPassword(email, PASSWORD, fresh[0], "192.0.2.30")).toMatchObject({ email });
    expect(await verifyAdminPassword(email, PASSWORD, fresh[0], "192.0.2.30")).toBeUndefined();
    expect(await sql(`SELECT details FROM audit_log WHERE action = 'admin_user.recovery_codes_regenerated'`)).toEqual([
      { details: { email, with: "totp", recoveryCodes: 10 } },
    ]);
  });
});
