import type { Telegram } from "telegraf";

/**
 * Sends `text` to each chat, one after the other; a chat that cannot be reached is logged and the
 * others are still told. How many were told.
 */
export async function sendToChats(
  chats: Iterable<string>,
  text: string,
  telegram: Pick<Telegram, "sendMessage">,
  log: (line: string) => void,
): Promise<number> {
  let sent = 0;
  for (const chat of chats) {
    try {
      await telegram.sendMessage(chat, text);
      sent++;
    } catch (error) {
      log(`could not tell ${chat}: ${(error as Error).message}`);
    }
  }
  return sent;
}
