import { getPrisma, type PrismaTx } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { attemptSecondFactor } from "./attempt-second-factor";
import { checkSecondFactor, type SecondFactor } from "./check-second-factor";
import { matchesPasswordHash } from "./hash-admin-password";

export type TurnOffTwoFactorResult =
  | { status: "off" }
  | { status: "wrong_password" }
  | { status: "wrong_code" }
  | { status: "locked"; retryAfterSeconds: number }
  | { status: "not_on" };

/**
 * Turns the admin's own two-factor off when `password` is theirs and `code` (a current TOTP code or an
 * unused recovery code) is right: the secret and the recovery codes are dropped and the change
 * audited, in one transaction. A wrong password or code counts against the admin's second step like
 * a wrong code at sign-in (attempt-second-factor.ts): a stolen session cannot guess either here.
 */
export async function turnOffTwoFactor(input: {
  adminId: number;
  password: string;
  code: string;
  actor: string;
  /** The request's source (an IPv4 address or an IPv6 /64). */
  source: string;
}): Promise<TurnOffTwoFactorResult> {
  return getPrisma().$transaction(async (tx) => {
    const admin = await tx.adminUser.findUnique({
      where: { id: input.adminId },
      select: { email: true, totpSecret: true, passwordHash: true },
    });
    if (!admin?.totpSecret) return { status: "not_on" as const };
    let passwordRight = false;
    const attempt = await attemptSecondFactor<SecondFactor>(
      { adminId: input.adminId, source: input.source },
      async (inner) => {
        passwordRight = await matchesPasswordHash(input.password, admin.passwordHash);
        return passwordRight ? checkSecondFactor(input.adminId, input.code, inner) : undefined;
      },
      tx,
    );
    if (attempt.status === "locked") return attempt;
    if (attempt.status === "wrong")
      return { status: passwordRight ? ("wrong_code" as const) : ("wrong_password" as const) };
    await clearTwoFactor(tx, input.adminId);
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.two_factor_off",
        targetType: "admin_user",
        targetId: input.adminId,
        details: { email: admin.email, with: attempt.value },
      },
      tx,
    );
    return { status: "off" as const };
  });
}

/** Drops an admin's two-factor: secret, set-up and recovery codes. */
export async function clearTwoFactor(tx: PrismaTx, adminId: number): Promise<void> {
  await tx.adminUser.update({
    where: { id: adminId },
    data: { totpSecret: null, totpPendingSecret: null, totpEnabledAt: null, totpLastStep: null },
  });
  await tx.adminRecoveryCode.deleteMany({ where: { adminUserId: adminId } });
}
