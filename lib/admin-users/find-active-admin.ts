import { getPool } from "../db/pool";
import { ADMIN_USER_COLUMNS, normaliseAdminEmail, type AdminUserRecord } from "./admin-user-record";

/**
 * The admin behind a dashboard session, if they still exist and are not disabled. Every page and
 * action asks, so disabling an admin (or deleting the row) ends their sessions at once instead of
 * when the session cookie expires.
 */
export async function findActiveAdmin(email: string): Promise<AdminUserRecord | undefined> {
  const { rows } = await getPool().query<AdminUserRecord>(
    `SELECT ${ADMIN_USER_COLUMNS} FROM admin_users WHERE email = $1 AND NOT disabled`,
    [normaliseAdminEmail(email)],
  );
  return rows[0];
}
