import { getPrisma } from "../db/prisma";
import { recordWebhookEvent, type RecordedWebhookEvent } from "./sql/record-webhook-event";

export type SendTestEventResult =
  | ({ status: "queued" } & RecordedWebhookEvent)
  | { status: "not_found" }
  | { status: "disabled"; reason: string | null };

/** Queues an endpoint.test event for one enabled endpoint of the account. */
export async function sendTestEvent(input: { accountId: number; endpointId: number }): Promise<SendTestEventResult> {
  return getPrisma().$transaction(async (tx) => {
    const endpoint = await tx.webhookEndpoint.findFirst({
      where: { id: input.endpointId, accountId: input.accountId },
      select: { url: true, disabledAt: true, disabledReason: true },
    });
    if (!endpoint) return { status: "not_found" as const };
    if (endpoint.disabledAt) return { status: "disabled" as const, reason: endpoint.disabledReason };
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
