// A worker process sending the bot's queued notices (an endpoint disabled, the owners' alerts)
// through a local Bot API, as the service does, and a way to know that it has sent every notice
// queued so far, read from what the chats received rather than from the job queue.
import crypto from "node:crypto";
import { expect } from "vitest";
import { getPrisma } from "@/lib/db/prisma";
import { addNotifyOwnersJob } from "@/lib/telegram/sql/add-notify-owners-job";
import type { FakeTelegram } from "./fake-telegram";
import { startWorkerProcess } from "./fault-load";
import { suiteDatabaseUrl } from "./suite";

export interface NoticeWorker {
  /** The texts `chat` received, without allSent's markers. */
  textsTo(chat: number): string[];
  /**
   * Resolves once the worker has sent every notice queued before the call. It sends them one at a
   * time in the order they were queued (the bot notices' runner in lib/fulfilment/sql/run-worker.ts),
   * so a marker queued now for the owners reaches `ownerChat` after all of them.
   */
  allSent(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a worker whose bot token and Bot API root are the fake's, with `ownerChat` as the bootstrap
 * owner (ADMIN_TELEGRAM_IDS) while no owner is linked. It delivers no webhook: a test that walks
 * deliveries with a chosen clock makes each attempt itself.
 */
export async function startNoticeWorker(fake: FakeTelegram, ownerChat: number): Promise<NoticeWorker> {
  const worker = startWorkerProcess({
    DATABASE_URL: suiteDatabaseUrl(),
    TELEGRAM_BOT_TOKEN: fake.token,
    TELEGRAM_API_ROOT: fake.apiRoot,
    ADMIN_TELEGRAM_IDS: String(ownerChat),
    WEBHOOK_CONCURRENCY: "0",
  });
  await worker.ready;
  const markers = new Set<string>();
  return {
    textsTo: (chat) => fake.textsTo(chat).filter((text) => !markers.has(text)),
    async allSent() {
      const marker = `all sent ${crypto.randomUUID()}`;
      markers.add(marker);
      await getPrisma().$transaction((tx) => addNotifyOwnersJob(tx, marker));
      await expect
        .poll(() => fake.textsTo(ownerChat), { timeout: 30_000, interval: 100 })
        .toContain(marker)
        .catch((error: Error) => {
          throw new Error(`${error.message}\nthe worker said:\n${worker.output.join("\n")}`);
        });
    },
    async stop() {
      worker.child.kill("SIGTERM");
      if (worker.child.exitCode === null) await new Promise((resolve) => worker.child.once("exit", resolve));
    },
  };
}
