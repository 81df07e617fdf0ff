import { getPrisma } from "../db/prisma";
import { ADMIN_USER_SELECT, hasTwoFactor, normaliseAdminEmail, type AdminUserRecord } from "./admin-user-record";
import { hashAdminPassword, matchesPasswordHash } from "./hash-admin-password";
import { checkSecondFactor } from "./check-second-factor";
import { attemptSecondFactor } from "./attempt-second-factor";

/** The password was right but the admin's second step is locked by wrong codes (attempt-second-factor.ts). */
export interface SecondFactorLocked {
  secondFactorLocked: true;
  retryAfterSeconds: number;
}

// Hashed once per process: checking a password against it costs the same as against a real hash,
// so an unknown email answers as slowly as a wrong password and does not reveal who is an admin.
let decoyHash: Promise<string> | undefined;

/**
 * The admin whose email and password match, and, when they have two-factor on, whose `secondFactor`
 * (a TOTP code or a recovery code) is right and unused; otherwise undefined (unknown email, wrong
 * password, wrong or missing code, or a disabled admin), without saying which. A wrong code counts
 * against the admin, from `source`; once their second step is locked, SecondFactorLocked (only to
 * someone with the password). A successful check records the sign-in time.
 */
export async function verifyAdminPassword(
  email: string,
  password: string,
  secondFactor = "",
  source = "unknown",
): Promise<AdminUserRecord | SecondFactorLocked | undefined> {
  const found = await getPrisma().adminUser.findUnique({
    where: { email: normaliseAdminEmail(email) },
    select: { ...ADMIN_USER_SELECT, passwordHash: true },
  });
  const matches = await matchesPasswordHash(
    password,
    found?.passwordHash ?? (await (decoyHash ??= hashAdminPassword("decoy password"))),
  );
  if (!found || !matches || found.disabled) return undefined;
  if (hasTwoFactor(found)) {
    // No code is no guess: it is refused without counting.
    if (!secondFactor) return undefined;
    const attempt = await attemptSecondFactor({ adminId: found.id, source }, (tx) =>
      checkSecondFactor(found.id, secondFactor, tx),
    );
    if (attempt.status === "locked") return { secondFactorLocked: true, retryAfterSeconds: attempt.retryAfterSeconds };
    if (attempt.status === "wrong") return undefined;
  }
  const { passwordHash: _, ...admin } = found;
  const signedIn = await getPrisma().adminUser.update({
    where: { id: admin.id },
    data: { lastLoginAt: new Date() },
    select: ADMIN_USER_SELECT,
  });
  return signedIn;
}
