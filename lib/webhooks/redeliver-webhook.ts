// An admin re-sends one delivery: a new delivery of the same event to the same endpoint, from its
// first attempt, under the event's own webhook-id. The new row, due now, is what the worker's
// dispatcher claims: it exists exactly when the delivery does.
import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

export type RedeliverResult =
  { status: "queued"; deliveryId: number } | { status: "not_found" } | { status: "endpoint_disabled" };

export async function redeliverWebhook(input: { deliveryId: number; actor: string }): Promise<RedeliverResult> {
  return getPrisma().$transaction(async (tx) => {
    const original = await tx.webhookDelivery.findUnique({
      where: { id: BigInt(input.deliveryId) },
      select: { eventId: true, endpointId: true, endpoint: { select: { disabledAt: true, accountId: true } } },
    });
    if (!original) return { status: "not_found" as const };
    if (original.endpoint.disabledAt) return { status: "endpoint_disabled" as const };
    const created = await tx.webhookDelivery.create({
      data: { eventId: original.eventId, endpointId: original.endpointId, nextAttemptAt: new Date() },
      select: { id: true },
    });
    const deliveryId = numberFromDb(created.id);
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "webhook.redeliver",
        targetType: "account",
        targetId: original.endpoint.accountId,
        details: { deliveryId: input.deliveryId, newDeliveryId: deliveryId },
      },
      tx,
    );
    return { status: "queued" as const, deliveryId };
  });
}
