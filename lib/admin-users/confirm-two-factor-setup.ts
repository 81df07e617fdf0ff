import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { matchTotpStep, openTotpSecret } from "./admin-totp";
import { generateRecoveryCode, hashRecoveryCode, RECOVERY_CODE_COUNT } from "./recovery-codes";

export type ConfirmTwoFactorSetupResult =
  { status: "enabled"; recoveryCodes: string[] } | { status: "wrong_code" } | { status: "no_setup" };

/**
 * Turns two-factor on when `code` is valid for the pending secret: the secret becomes the admin's,
 * fresh recovery codes replace any old ones (returned here once, stored as digests), and the change
 * is audited, all in one transaction. The code's step counts as used, so it cannot sign in again.
 */
export async function confirmTwoFactorSetup(input: {
  adminId: number;
  code: string;
  actor: string;
}): Promise<ConfirmTwoFactorSetupResult> {
  const admin = await getPrisma().adminUser.findUnique({
    where: { id: input.adminId },
    select: { email: true, totpPendingSecret: true, totpSecret: true },
  });
  if (!admin?.totpPendingSecret || admin.totpSecret) return { status: "no_setup" };
  const pending = admin.totpPendingSecret;
  const step = matchTotpStep(openTotpSecret(pending), input.code);
  if (step === undefined) return { status: "wrong_code" };
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
  return getPrisma().$transaction(async (tx) => {
    // Only the secret that was checked, and only while two-factor is still off (a concurrent confirm
    // or a new set-up in between wins).
    const { count } = await tx.adminUser.updateMany({
      where: { id: input.adminId, totpSecret: null, totpPendingSecret: pending },
      data: { totpSecret: pending, totpPendingSecret: null, totpEnabledAt: new Date(), totpLastStep: step },
    });
    if (count !== 1) return { status: "no_setup" as const };
    await tx.adminRecoveryCode.deleteMany({ where: { adminUserId: input.adminId } });
    await tx.adminRecoveryCode.createMany({
      data: recoveryCodes.map((code) => ({ adminUserId: input.adminId, codeHash: hashRecoveryCode(code)! })),
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.two_factor_on",
        targetType: "admin_user",
        targetId: input.adminId,
        details: { email: admin.email, recoveryCodes: recoveryCodes.length },
      },
      tx,
    );
    return { status: "enabled" as const, recoveryCodes };
  });
}
