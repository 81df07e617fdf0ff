// An admin re-sends one delivery: a new delivery of the same event to the same endpoint, from its
// first attempt, under the event's own webhook-id.
import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { DELIVER_WEBHOOK_TASK } from "./event-types";

export type RedeliverResult = { status: "queued"; deliveryId: number } | { status: "not_found" } | { status: "endpoint_disabled" };

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
    // The job is queued in this transaction so it exists exactly when the delivery does.
    await tx.$executeRaw`SELECT graphile_worker.add_job(${DELIVER_WEBHOOK_TASK}, json_build_object('deliveryId', ${deliveryId}::bigint, 'attempt', 1), max_attempts := 25)`;
    await recordAuditEntry(
      { actor: input.actor, action: "webhook.redeliver", targetType: "account", targetId: original.endpoint.accountId, details: { deliveryId: input.deliveryId, newDeliveryId: deliveryId } },
      tx,
    );
    return { status: "queued" as const, deliveryId };
  });
}
