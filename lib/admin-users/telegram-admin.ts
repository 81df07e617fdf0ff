// An admin user as the bot sees them: linked to a Telegram account, active, with their role. Read
// afresh for every update, so a role change, a disabled admin or an unlink counts at once.
import { roleAllows, type AdminRole } from "./admin-role";

export interface TelegramAdmin {
  adminId: number;
  email: string;
  role: string;
  telegramId: number;
  /** Two-factor is on for this admin (owner commands need it, as owner actions on the dashboard do). */
  twoFactor: boolean;
}

/** Whether the admin may run what needs `needed`: the dashboard's rule (role, and two-factor for owners). */
export function telegramAdminMay(admin: Pick<TelegramAdmin, "role" | "twoFactor">, needed: AdminRole): boolean {
  return roleAllows(admin.role, needed) && (needed !== "owner" || admin.twoFactor);
}
