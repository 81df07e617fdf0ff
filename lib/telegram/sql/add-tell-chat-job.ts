// Queues a message to one chat in the caller's transaction: sent (and retried) by the worker only if
// the change that decided it commits, so a decision racing another tells the holder once.
import type { PrismaTx } from "../../db/prisma";
import { TELL_CHAT_TASK } from "../telegram-tasks";

export async function addTellChatJob(tx: PrismaTx, chatId: number, text: string): Promise<void> {
  await tx.$executeRaw`SELECT graphile_worker.add_job(${TELL_CHAT_TASK},
    json_build_object('chatId', ${String(chatId)}::text, 'text', ${text}::text), max_attempts := 10)`;
}
