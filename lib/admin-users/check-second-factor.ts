import { getPrisma, type PrismaTx } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { matchTotpStep, openTotpSecret, parseTotpCode } from "./admin-totp";
import { adminActor } from "./admin-user-record";
import { hashRecoveryCode } from "./recovery-codes";

export type SecondFactor = "totp" | "recovery_code";

/**
 * Checks a second factor of an admin with two-factor on, and uses it up: a TOTP code is accepted
 * once (its step must be later than the last accepted one, so a replay inside the code's window is
 * refused), a recovery code once ever (its use is audited). Undefined when the code is wrong, used,
 * or the admin has no two-factor. Pass `tx` to use the code up in the caller's transaction.
 */
export async function checkSecondFactor(
  adminId: number,
  code: string,
  tx?: PrismaTx,
): Promise<SecondFactor | undefined> {
  const db = tx ?? getPrisma();
  const admin = await db.adminUser.findUnique({ where: { id: adminId }, select: { email: true, totpSecret: true } });
  if (!admin?.totpSecret) return undefined;
  if (parseTotpCode(code) !== undefined) {
    const step = matchTotpStep(openTotpSecret(admin.totpSecret), code);
    if (step === undefined) return undefined;
    // Conditional on the stored step: of two sign-ins with the same code at once, one wins.
    const { count } = await db.adminUser.updateMany({
      where: {
        id: adminId,
        totpSecret: admin.totpSecret,
        OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }],
      },
      data: { totpLastStep: step },
    });
    return count === 1 ? "totp" : undefined;
  }
  const codeHash = hashRecoveryCode(code);
  if (codeHash === undefined) return undefined;
  const spend = async (inner: PrismaTx) => {
    const { count } = await inner.adminRecoveryCode.updateMany({
      where: { adminUserId: adminId, codeHash, usedAt: null },
      data: { usedAt: new Date() },
    });
    if (count !== 1) return undefined;
    const left = await inner.adminRecoveryCode.count({ where: { adminUserId: adminId, usedAt: null } });
    await recordAuditEntry(
      {
        actor: adminActor(admin.email),
        action: "admin_user.recovery_code_used",
        targetType: "admin_user",
        targetId: adminId,
        details: { email: admin.email, left },
      },
      inner,
    );
    return "recovery_code" as const;
  };
  return tx ? spend(tx) : getPrisma().$transaction(spend);
}
