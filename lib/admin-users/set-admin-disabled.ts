import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { countActiveOwners } from "./count-active-owners";
import { lockAdminUsers } from "./sql/lock-admin-users";

export type SetAdminDisabledResult =
  | { status: "changed"; email: string }
  | { status: "unchanged"; email: string }
  | { status: "self" }
  | { status: "last_owner"; email: string }
  | { status: "not_found" };

/**
 * Disables an admin (every session of theirs ends at once: each page and action looks the admin up,
 * and one from before is refused once they are enabled again) or enables them again, audited in the
 * same transaction. Nobody disables themselves, and the last active owner stays enabled.
 */
export async function setAdminDisabled(input: {
  adminId: number;
  disabled: boolean;
  /** The admin making the change. */
  byAdminId: number;
  actor: string;
}): Promise<SetAdminDisabledResult> {
  if (input.disabled && input.adminId === input.byAdminId) return { status: "self" };
  return getPrisma().$transaction(async (tx) => {
    await lockAdminUsers(tx);
    const admin = await tx.adminUser.findUnique({
      where: { id: input.adminId },
      select: { email: true, role: true, disabled: true },
    });
    if (!admin) return { status: "not_found" as const };
    if (admin.disabled === input.disabled) return { status: "unchanged" as const, email: admin.email };
    if (input.disabled && admin.role === "owner" && (await countActiveOwners(tx)) <= 1)
      return { status: "last_owner" as const, email: admin.email };
    // Disabling ends their sessions for good: enabled again, they sign in again.
    await tx.adminUser.update({
      where: { id: input.adminId },
      data: input.disabled ? { disabled: true, sessionsValidFrom: new Date() } : { disabled: false },
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: input.disabled ? "admin_user.disable" : "admin_user.enable",
        targetType: "admin_user",
        targetId: input.adminId,
        details: { email: admin.email, role: admin.role },
      },
      tx,
    );
    return { status: "changed" as const, email: admin.email };
  });
}
