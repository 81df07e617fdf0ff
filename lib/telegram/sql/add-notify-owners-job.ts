// Queues a message to the owners in the caller's transaction: it is sent (and retried) by the
// worker only if the change that decided it commits.
import type { PrismaTx } from "../../db/prisma";
import { NOTIFY_OWNERS_TASK } from "../telegram-tasks";

export async function addNotifyOwnersJob(tx: PrismaTx, text: string): Promise<void> {
  await tx.$executeRaw`SELECT graphile_worker.add_job(${NOTIFY_OWNERS_TASK}, json_build_object('text', ${text}::text),
    max_attempts := 10)`;
}
