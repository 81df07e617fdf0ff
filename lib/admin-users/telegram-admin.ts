// An admin user as the bot sees them: linked to a Telegram account, active, with their role. Read
// afresh for every update, so a role change, a disabled admin or an unlink counts at once.
import { roleAllows, type AdminRole } from "./admin-role";

export interface TelegramAdmin {
  adminId: number;
  email: string;
  role: string;
  telegramId: number;
  /** Two-factor is on for this admin: every admin command needs it, as the dashboard does. */
  twoFactor: boolean;
}

/**
 * Whether the admin may run what needs `needed`: the dashboard's rule, the role and two-factor on
 * (the dashboard stays closed to an admin whose two-factor was turned off or reset until they enrol
 * again, and so does the bot).
 */
export function telegramAdminMay(admin: Pick<TelegramAdmin, "role" | "twoFactor">, needed: AdminRole): boolean {
  return admin.twoFactor && roleAllows(admin.role, needed);
}
