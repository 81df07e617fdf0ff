// Telegram redelivers an update when it is not sure the bot got it (a crash before the next
// getUpdates confirmed the offset, a webhook answered late, two bot instances polling). Each
// update id is handled once: the first arrival records it, every later one is skipped.
import type { MiddlewareFn } from "telegraf";
import { getPool } from "@/lib/db/pool";
import type { BotContext } from "../context";

export const dedupeUpdates: MiddlewareFn<BotContext> = async (ctx, next) => {
  // Concurrent copies of one update serialise on the primary key: exactly one INSERT wins.
  const { rowCount } = await getPool().query(
    `INSERT INTO processed_telegram_updates (update_id) VALUES ($1) ON CONFLICT (update_id) DO NOTHING`,
    [ctx.update.update_id],
  );
  if (rowCount === 0) return;
  return next();
};

/**
 * Telegram keeps undelivered updates for at most 24 hours, so a record older than that can never
 * be matched again; the bot prunes old ones so the table stays small.
 */
export async function pruneProcessedUpdates(olderThanDays = 7): Promise<number> {
  const { rowCount } = await getPool().query(
    `DELETE FROM processed_telegram_updates WHERE processed_at < now() - make_interval(days => $1)`,
    [olderThanDays],
  );
  return rowCount ?? 0;
}
