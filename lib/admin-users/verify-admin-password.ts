import { getPrisma } from "../db/prisma";
import { ADMIN_USER_SELECT, normaliseAdminEmail, type AdminUserRecord } from "./admin-user-record";
import { hashAdminPassword, matchesPasswordHash } from "./hash-admin-password";

// Hashed once per process: checking a password against it costs the same as against a real hash,
// so an unknown email answers as slowly as a wrong password and does not reveal who is an admin.
let decoyHash: Promise<string> | undefined;

/**
 * The admin whose email and password match, or undefined (unknown email, wrong password, or a
 * disabled admin). A successful check records the sign-in time.
 */
export async function verifyAdminPassword(email: string, password: string): Promise<AdminUserRecord | undefined> {
  const found = await getPrisma().adminUser.findUnique({
    where: { email: normaliseAdminEmail(email) },
    select: { ...ADMIN_USER_SELECT, passwordHash: true },
  });
  const matches = await matchesPasswordHash(
    password,
    found?.passwordHash ?? (await (decoyHash ??= hashAdminPassword("decoy password"))),
  );
  if (!found || !matches || found.disabled) return undefined;
  const { passwordHash: _, ...admin } = found;
  const signedIn = await getPrisma().adminUser.update({
    where: { id: admin.id },
    data: { lastLoginAt: new Date() },
    select: ADMIN_USER_SELECT,
  });
  return signedIn;
}
