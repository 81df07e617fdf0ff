import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { generateEndpointSecret, sealSecret, SECRET_ROTATION_OVERLAP_MS } from "./endpoint-secret";
import { lockWebhookEndpoint } from "./sql/lock-webhook-endpoints";

export type RotateSecretResult =
  { status: "rotated"; secret: string; previousValidUntil: Date } | { status: "not_found" };

/**
 * A new secret for one of the account's endpoints. For a day the old one keeps signing too (the
 * webhook-signature header carries both), so the receiver can switch without losing a delivery.
 */
export async function rotateWebhookSecret(input: {
  accountId: number;
  endpointId: number;
  actor: string;
  now?: Date;
}): Promise<RotateSecretResult> {
  const secret = generateEndpointSecret();
  const previousValidUntil = new Date((input.now ?? new Date()).getTime() + SECRET_ROTATION_OVERLAP_MS);
  return getPrisma().$transaction(async (tx) => {
    // The row lock of FOR UPDATE keeps a concurrent rotation from reading the secret this one replaces.
    const current = await lockWebhookEndpoint(tx, input.accountId, input.endpointId);
    if (!current) return { status: "not_found" as const };
    await tx.webhookEndpoint.update({
      where: { id: input.endpointId },
      data: { previousSecret: current.secret, previousSecretExpiresAt: previousValidUntil, secret: sealSecret(secret) },
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "webhook.secret_rotate",
        targetType: "webhook_endpoint",
        targetId: input.endpointId,
        details: { accountId: input.accountId },
      },
      tx,
    );
    return { status: "rotated" as const, secret, previousValidUntil };
  });
}
