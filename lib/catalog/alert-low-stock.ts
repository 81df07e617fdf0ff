// Tells the admins once each time a pack's free codes fall below the threshold an owner set for it
// (stock_alert_below); the pack is re-armed when its stock is back at or above it. The worker looks
// after every sweep, so a crossing is told within WORKER_SWEEP_MS, off the placement path.
import type { Telegram } from "telegraf";
import { notifyAdmins } from "../telegram/notify-admins";
import { telegramFromEnv } from "../telegram/telegram-from-env";
import { claimStockCrossings, type StockCrossing } from "./sql/claim-stock-crossings";
import { logger } from "../observability/logger";

function lowStockMessage(crossing: StockCrossing): string {
  return `📦 Low stock: ${crossing.catalogId} (${crossing.packName}) has ${crossing.available} codes left, below its alert at ${crossing.threshold}. Upload codes in the dashboard's catalog.`;
}

/** The crossings claimed and told (each claimed by one worker only). */
export async function alertLowStock(
  telegram: Pick<Telegram, "sendMessage"> | undefined = telegramFromEnv(),
  log: (line: string) => void = (line) => logger("catalog").warn(line),
): Promise<StockCrossing[]> {
  const crossings = await claimStockCrossings();
  for (const crossing of crossings) await notifyAdmins(lowStockMessage(crossing), telegram, log);
  return crossings;
}
