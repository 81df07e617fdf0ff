import { getPrisma } from "../db/prisma";
import { recordWebhookEvent, type RecordedWebhookEvent } from "./sql/record-webhook-event";

/** Test events an account may queue in an hour: each one is a request the service sends for it. */
export const TEST_EVENTS_PER_HOUR = 10;
const HOUR_MS = 3_600_000;

export type SendTestEventResult =
  | ({ status: "queued" } & RecordedWebhookEvent)
  | { status: "not_found" }
  | { status: "disabled"; reason: string | null }
  | { status: "rate_limited"; retryAfterSeconds: number };

/** Queues an endpoint.test event for one enabled endpoint of the account, at most TEST_EVENTS_PER_HOUR an hour. */
export async function sendTestEvent(input: { accountId: number; endpointId: number }): Promise<SendTestEventResult> {
  return getPrisma().$transaction(async (tx) => {
    const endpoint = await tx.webhookEndpoint.findFirst({
      where: { id: input.endpointId, accountId: input.accountId },
      select: { url: true, disabledAt: true, disabledReason: true },
    });
    if (!endpoint) return { status: "not_found" as const };
    if (endpoint.disabledAt) return { status: "disabled" as const, reason: endpoint.disabledReason };
    const since = new Date(Date.now() - HOUR_MS);
    const recent = await tx.webhookEvent.findMany({
      where: { accountId: input.accountId, type: "endpoint.test", createdAt: { gt: since } },
      select: { createdAt: true },
      orderBy: { createdAt: "asc" },
    });
    const oldest = recent[0];
    if (oldest && recent.length >= TEST_EVENTS_PER_HOUR) {
      const retryAfterSeconds = Math.max(1, Math.ceil((oldest.createdAt.getTime() + HOUR_MS - Date.now()) / 1000));
      return { status: "rate_limited" as const, retryAfterSeconds };
    }
    const recorded = await recordWebhookEvent(tx, {
      accountId: input.accountId,
      type: "endpoint.test",
      endpointId: input.endpointId,
      data: {
        endpointId: input.endpointId,
        url: endpoint.url,
        message: "A test event: your endpoint receives and verifies webhooks.",
      },
    });
    return { status: "queued" as const, ...recorded };
  });
}
