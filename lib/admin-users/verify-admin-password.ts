import { getPool } from "../db/pool";
import { ADMIN_USER_COLUMNS, normaliseAdminEmail, type AdminUserRecord } from "./admin-user-record";
import { hashAdminPassword, matchesPasswordHash } from "./hash-admin-password";

// Hashed once per process: checking a password against it costs the same as against a real hash,
// so an unknown email answers as slowly as a wrong password and does not reveal who is an admin.
let decoyHash: Promise<string> | undefined;

/**
 * The admin whose email and password match, or undefined (unknown email, wrong password, or a
 * disabled admin). A successful check records the sign-in time.
 */
export async function verifyAdminPassword(email: string, password: string): Promise<AdminUserRecord | undefined> {
  const { rows } = await getPool().query<AdminUserRecord & { passwordHash: string }>(
    `SELECT ${ADMIN_USER_COLUMNS}, password_hash AS "passwordHash" FROM admin_users WHERE email = $1`,
    [normaliseAdminEmail(email)],
  );
  const found = rows[0];
  const matches = await matchesPasswordHash(password, found?.passwordHash ?? (await (decoyHash ??= hashAdminPassword("decoy password"))));
  if (!found || !matches || found.disabled) return undefined;
  const { passwordHash: _, ...admin } = found;
  await getPool().query(`UPDATE admin_users SET last_login_at = now() WHERE id = $1`, [admin.id]);
  return { ...admin, lastLoginAt: new Date() };
}
