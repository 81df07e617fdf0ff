import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { clearTwoFactor } from "./turn-off-two-factor";

export type ResetAdminTwoFactorResult =
  { status: "reset"; email: string } | { status: "not_on" } | { status: "not_found" };

/**
 * An owner turns another admin's two-factor off (a lost phone and lost recovery codes): they sign in
 * with their password alone until they set it up again, and every session of theirs ends. Audited in
 * the same transaction.
 */
export async function resetAdminTwoFactor(input: {
  adminId: number;
  actor: string;
}): Promise<ResetAdminTwoFactorResult> {
  return getPrisma().$transaction(async (tx) => {
    const admin = await tx.adminUser.findUnique({
      where: { id: input.adminId },
      select: { email: true, totpSecret: true },
    });
    if (!admin) return { status: "not_found" as const };
    if (!admin.totpSecret) return { status: "not_on" as const };
    await clearTwoFactor(tx, input.adminId);
    // Their sessions end: a stolen one must not come back once they enrol on a new device.
    await tx.adminUser.update({ where: { id: input.adminId }, data: { sessionsValidFrom: new Date() } });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.two_factor_reset",
        targetType: "admin_user",
        targetId: input.adminId,
        details: { email: admin.email },
      },
      tx,
    );
    return { status: "reset" as const, email: admin.email };
  });
}
