import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { ADMIN_USER_SELECT, isPlausibleEmail, normaliseAdminEmail, type AdminUserRecord } from "./admin-user-record";
import { hashAdminPassword } from "./hash-admin-password";
import type { AdminRole } from "./admin-role";

/** Shorter passwords are refused: the dashboard can settle orders and stop the API. */
export const MIN_ADMIN_PASSWORD_LENGTH = 12;
const MAX_ADMIN_PASSWORD_LENGTH = 1024;

export type CreateAdminUserResult =
  | { status: "created"; admin: AdminUserRecord }
  | { status: "exists" }
  | { status: "invalid_email" }
  | { status: "weak_password"; minLength: number };

/**
 * Creates a dashboard admin with a scrypt hash of the password. `actor` is who did it
 * ("cli:admin-create" from the command line, "admin:<email>" from another admin).
 */
export async function createAdminUser(input: {
  email: string;
  password: string;
  role: AdminRole;
  actor: string;
}): Promise<CreateAdminUserResult> {
  const email = normaliseAdminEmail(input.email);
  if (!isPlausibleEmail(email)) return { status: "invalid_email" };
  if (input.password.length < MIN_ADMIN_PASSWORD_LENGTH || input.password.length > MAX_ADMIN_PASSWORD_LENGTH) {
    return { status: "weak_password", minLength: MIN_ADMIN_PASSWORD_LENGTH };
  }
  // Hashed before the transaction opens: scrypt takes tens of milliseconds and needs no lock.
  const passwordHash = await hashAdminPassword(input.password);
  return getPrisma().$transaction(async (tx) => {
    // ON CONFLICT DO NOTHING: a concurrent create of the same email inserts nothing instead of failing.
    const [admin] = await tx.adminUser.createManyAndReturn({
      data: [{ email, passwordHash, role: input.role }],
      skipDuplicates: true,
      select: ADMIN_USER_SELECT,
    });
    if (!admin) return { status: "exists" as const };
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.create",
        targetType: "admin_user",
        targetId: admin.id,
        details: { email, role: input.role },
      },
      tx,
    );
    return { status: "created" as const, admin };
  });
}
