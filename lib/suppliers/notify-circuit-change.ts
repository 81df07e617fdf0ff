// Tells the bot's admins (ADMIN_TELEGRAM_IDS and accounts marked admin) when a supplier's circuit
// opens or closes. Best effort: a message that cannot be sent is logged, and the dashboard's
// suppliers page shows the circuit either way.
import type { Telegram } from "telegraf";
import { getPrisma } from "../db/prisma";
import { env } from "../config/env";
import { nullableNumberFromDb } from "../db/number-from-db";
import { telegramFromEnv } from "../telegram/telegram-from-env";
import type { CircuitChange } from "./sql/record-supplier-result";

export async function notifyCircuitChange(
  supplierName: string,
  change: NonNullable<CircuitChange>,
  telegram: Pick<Telegram, "sendMessage"> | undefined = telegramFromEnv(),
): Promise<number> {
  const text =
    change === "opened"
      ? `⚠️ Supplier ${supplierName}: circuit open after repeated failures. Orders go to its packs' other suppliers; it is probed again shortly.`
      : `✅ Supplier ${supplierName}: circuit closed, a probe succeeded. Orders go to it again.`;
  if (!telegram) {
    console.warn(`[suppliers] ${text} (TELEGRAM_BOT_TOKEN is not set here, so no admin is told)`);
    return 0;
  }
  const marked = await getPrisma().account.findMany({ where: { isAdmin: true }, select: { telegramId: true } });
  const chats = new Set([
    ...env().adminTelegramIds,
    ...marked.flatMap((account) => {
      const id = nullableNumberFromDb(account.telegramId);
      return id === null ? [] : [String(id)];
    }),
  ]);
  let sent = 0;
  for (const chat of chats) {
    try {
      await telegram.sendMessage(chat, text);
      sent++;
    } catch (error) {
      console.warn(`[suppliers] could not tell admin ${chat}: ${(error as Error).message}`);
    }
  }
  return sent;
}
