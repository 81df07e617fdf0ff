// Tells the owners something only they should act on (an admin's second step locked, say): the
// linked owners, or the bootstrap ADMIN_TELEGRAM_IDS while no owner is linked. Best effort, logged.
import { notifyAdmins } from "./notify-admins";
import { telegramFromEnv } from "./telegram-from-env";

export async function notifyOwners(text: string): Promise<void> {
  await notifyAdmins(text, telegramFromEnv(), (line) => console.warn(`[owners] ${line}`), "owner");
}
