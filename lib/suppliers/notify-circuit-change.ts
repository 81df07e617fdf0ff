// Tells the bot's admins when a supplier's circuit opens or closes; the dashboard's suppliers page
// shows the circuit either way.
import type { Telegram } from "telegraf";
import { notifyAdmins } from "../telegram/notify-admins";
import { telegramFromEnv } from "../telegram/telegram-from-env";
import type { CircuitChange } from "./sql/record-supplier-result";
import { logger } from "../observability/logger";

export function notifyCircuitChange(
  supplierName: string,
  change: NonNullable<CircuitChange>,
  telegram: Pick<Telegram, "sendMessage"> | undefined = telegramFromEnv(),
): Promise<number> {
  const text =
    change === "opened"
      ? `⚠️ Supplier ${supplierName}: circuit open after repeated failures. Orders go to its packs' other suppliers; it is probed again shortly.`
      : `✅ Supplier ${supplierName}: circuit closed, a probe succeeded. Orders go to it again.`;
  return notifyAdmins(text, telegram, (line) => logger("suppliers").warn(line));
}
