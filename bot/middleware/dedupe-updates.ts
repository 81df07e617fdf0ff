// Telegram redelivers an update when it is not sure the bot got it (a crash before the next
// getUpdates confirmed the offset, a webhook answered late, two bot instances polling). Each
// update id is handled once: the first arrival records it, every later one is skipped.
import type { MiddlewareFn } from "telegraf";
import { getPrisma } from "@/lib/db/prisma";
import type { BotContext } from "../context";

export const dedupeUpdates: MiddlewareFn<BotContext> = async (ctx, next) => {
  // INSERT ... ON CONFLICT DO NOTHING: concurrent copies of one update serialise on the primary
  // key and exactly one inserts.
  const { count } = await getPrisma().processedTelegramUpdate.createMany({
    data: [{ updateId: BigInt(ctx.update.update_id) }],
    skipDuplicates: true,
  });
  if (count === 0) return;
  return next();
};

/**
 * Telegram keeps undelivered updates for at most 24 hours, so a record older than that can never
 * be matched again; the bot prunes old ones so the table stays small.
 */
export async function pruneProcessedUpdates(olderThanDays = 7): Promise<number> {
  const { count } = await getPrisma().processedTelegramUpdate.deleteMany({
    where: { processedAt: { lt: new Date(Date.now() - olderThanDays * 86_400_000) } },
  });
  return count;
}
