import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { attemptSecondFactor } from "./attempt-second-factor";
import { checkSecondFactor } from "./check-second-factor";
import { generateRecoveryCode, hashRecoveryCode, RECOVERY_CODE_COUNT } from "./recovery-codes";

export type RegenerateRecoveryCodesResult =
  | { status: "regenerated"; recoveryCodes: string[] }
  | { status: "wrong_code" }
  | { status: "locked"; retryAfterSeconds: number }
  | { status: "not_on" };

/**
 * Replaces the admin's recovery codes with new ones when `code` (a current TOTP code, or an unused
 * recovery code) is right: the old ones stop working, the new ones are returned here once and
 * stored as digests, and the change is audited, in one transaction. A wrong code counts against
 * the admin's second step like one at sign-in.
 */
export async function regenerateRecoveryCodes(input: {
  adminId: number;
  code: string;
  actor: string;
  /** The request's source (an IPv4 address or an IPv6 /64). */
  source: string;
}): Promise<RegenerateRecoveryCodesResult> {
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
  return getPrisma().$transaction(async (tx) => {
    const admin = await tx.adminUser.findUnique({
      where: { id: input.adminId },
      select: { email: true, totpSecret: true },
    });
    if (!admin?.totpSecret) return { status: "not_on" as const };
    const attempt = await attemptSecondFactor(
      { adminId: input.adminId, source: input.source },
      (inner) => checkSecondFactor(input.adminId, input.code, inner),
      tx,
    );
    if (attempt.status === "locked") return attempt;
    if (attempt.status === "wrong") return { status: "wrong_code" as const };
    await tx.adminRecoveryCode.deleteMany({ where: { adminUserId: input.adminId } });
    await tx.adminRecoveryCode.createMany({
      data: recoveryCodes.map((code) => ({ adminUserId: input.adminId, codeHash: hashRecoveryCode(code)! })),
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.recovery_codes_regenerated",
        targetType: "admin_user",
        targetId: input.adminId,
        details: { email: admin.email, with: attempt.value, recoveryCodes: recoveryCodes.length },
      },
      tx,
    );
    return { status: "regenerated" as const, recoveryCodes };
  });
}
