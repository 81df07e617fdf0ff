import { getPrisma, type PrismaTx } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { checkSecondFactor } from "./check-second-factor";

export type TurnOffTwoFactorResult = { status: "off" } | { status: "wrong_code" } | { status: "not_on" };

/**
 * Turns the admin's own two-factor off when `code` (a current TOTP code or an unused recovery code)
 * is right: the secret and the recovery codes are dropped and the change audited, in one transaction.
 */
export async function turnOffTwoFactor(input: {
  adminId: number;
  code: string;
  actor: string;
}): Promise<TurnOffTwoFactorResult> {
  return getPrisma().$transaction(async (tx) => {
    const admin = await tx.adminUser.findUnique({
      where: { id: input.adminId },
      select: { email: true, totpSecret: true },
    });
    if (!admin?.totpSecret) return { status: "not_on" as const };
    const factor = await checkSecondFactor(input.adminId, input.code, tx);
    if (!factor) return { status: "wrong_code" as const };
    await clearTwoFactor(tx, input.adminId);
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.two_factor_off",
        targetType: "admin_user",
        targetId: input.adminId,
        details: { email: admin.email, with: factor },
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
