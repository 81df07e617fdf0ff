import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import type { AdminRole } from "./admin-role";
import { countActiveOwners } from "./count-active-owners";
import { lockAdminUsers } from "./sql/lock-admin-users";

export type SetAdminRoleResult =
  | { status: "changed"; email: string; from: string; to: AdminRole }
  | { status: "unchanged"; email: string }
  | { status: "last_owner"; email: string }
  | { status: "not_found" };

/**
 * Changes an admin's role (audited in the same transaction). The last active owner keeps the role:
 * with no owner left, nobody could manage the admins, the catalog or the suppliers. Changes of roles
 * and disabled flags are serialised, so two owners demoting each other at once leave one owner.
 */
export async function setAdminRole(input: {
  adminId: number;
  role: AdminRole;
  actor: string;
}): Promise<SetAdminRoleResult> {
  return getPrisma().$transaction(async (tx) => {
    await lockAdminUsers(tx);
    const admin = await tx.adminUser.findUnique({
      where: { id: input.adminId },
      select: { email: true, role: true, disabled: true },
    });
    if (!admin) return { status: "not_found" as const };
    if (admin.role === input.role) return { status: "unchanged" as const, email: admin.email };
    if (admin.role === "owner" && !admin.disabled && (await countActiveOwners(tx)) <= 1)
      return { status: "last_owner" as const, email: admin.email };
    await tx.adminUser.update({ where: { id: input.adminId }, data: { role: input.role } });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.role",
        targetType: "admin_user",
        targetId: input.adminId,
        details: { email: admin.email, from: admin.role, to: input.role },
      },
      tx,
    );
    return { status: "changed" as const, email: admin.email, from: admin.role, to: input.role };
  });
}
