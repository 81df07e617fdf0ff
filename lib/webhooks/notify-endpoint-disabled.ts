// Tells the holder in the bot that one of their endpoints was disabled. It runs as its own job,
// added in the transaction that disabled the endpoint, so the message is not lost when Telegram
// is briefly unreachable (the job is retried), and the worker needs no bot running.
import type { Telegram } from "telegraf";
import { getPrisma } from "../db/prisma";
import { nullableNumberFromDb } from "../db/number-from-db";
import { telegramFromEnv } from "../telegram/telegram-from-env";
import { logger } from "../observability/logger";

export async function notifyEndpointDisabled(
  endpointId: number,
  telegram: Pick<Telegram, "sendMessage"> | undefined = telegramFromEnv(),
): Promise<"sent" | "no_bot" | "no_chat"> {
  const endpoint = await getPrisma().webhookEndpoint.findUnique({
    where: { id: endpointId },
    select: {
      url: true,
      disabledReason: true,
      account: { select: { telegramId: true, liveAccount: { select: { telegramId: true } } } },
    },
  });
  // A test endpoint belongs to the holder's test account, which has no chat of its own: the holder's.
  const account = endpoint?.account.liveAccount ?? endpoint?.account;
  const telegramId = nullableNumberFromDb(account?.telegramId ?? null);
  if (!endpoint || telegramId === null) return "no_chat";
  if (!telegram) {
    logger("webhooks").warn(
      `endpoint ${endpointId} disabled; TELEGRAM_BOT_TOKEN is not set here, so its holder is not told`,
    );
    return "no_bot";
  }
  await telegram.sendMessage(
    telegramId,
    `Webhook endpoint #${endpointId} (${endpoint.url}) was disabled: ${endpoint.disabledReason ?? "too many failures"}.\n` +
      `Events are still recorded: GET /events?after=<sequence> catches up. Fix the receiver, then add it again with /webhook add.`,
  );
  return "sent";
}
