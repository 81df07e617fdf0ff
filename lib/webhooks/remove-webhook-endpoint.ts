import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

/** Deletes one of the account's endpoints with its delivery log; queued jobs for it then do nothing. */
export async function removeWebhookEndpoint(input: {
  accountId: number;
  endpointId: number;
  actor: string;
}): Promise<"removed" | "not_found"> {
  return getPrisma().$transaction(async (tx) => {
    // The account id in both conditions scopes the delete to the caller's own endpoints; the count
    // of the delete, not the read, decides, so two concurrent removes audit it once.
    const endpoint = await tx.webhookEndpoint.findFirst({
      where: { id: input.endpointId, accountId: input.accountId },
      select: { url: true },
    });
    if (!endpoint) return "not_found" as const;
    const { count } = await tx.webhookEndpoint.deleteMany({
      where: { id: input.endpointId, accountId: input.accountId },
    });
    if (count === 0) return "not_found" as const;
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "webhook.endpoint_remove",
        targetType: "webhook_endpoint",
        targetId: input.endpointId,
        details: { accountId: input.accountId, url: endpoint.url },
      },
      tx,
    );
    return "removed" as const;
  });
}
