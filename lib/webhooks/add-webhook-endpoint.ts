import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import {
  DestinationRefused,
  resolveDestination,
  webhookPolicyFromEnv,
  type DestinationPolicy,
} from "./check-destination";
import { isWebhookEventType, MAX_ENDPOINTS_PER_ACCOUNT, type WebhookEventType } from "./event-types";
import { generateEndpointSecret, sealSecret } from "./endpoint-secret";
import { lockAccountEndpoints } from "./sql/lock-webhook-endpoints";

export type AddEndpointResult =
  | { status: "added"; endpointId: number; url: string; eventTypes: WebhookEventType[]; secret: string }
  | { status: "refused_url"; reason: string }
  | { status: "unknown_event_types"; unknown: string[] }
  | { status: "limit_reached"; limit: number };

/**
 * Registers an endpoint. The URL is checked as a delivery would check it (https, resolved to
 * public addresses only); every delivery checks again, since DNS can change. The secret is in the
 * result only: show it once.
 */
export async function addWebhookEndpoint(input: {
  accountId: number;
  url: string;
  /** Empty: every event type. */
  eventTypes?: string[];
  actor: string;
  policy?: DestinationPolicy;
}): Promise<AddEndpointResult> {
  const requested = [...new Set(input.eventTypes ?? [])];
  const unknown = requested.filter((type) => !isWebhookEventType(type) || type === "endpoint.test");
  if (unknown.length) return { status: "unknown_event_types", unknown };
  try {
    await resolveDestination(input.url, input.policy ?? webhookPolicyFromEnv());
  } catch (error) {
    if (error instanceof DestinationRefused) return { status: "refused_url", reason: error.message };
    throw error;
  }
  const eventTypes = requested as WebhookEventType[];
  const secret = generateEndpointSecret();
  return getPrisma().$transaction(async (tx) => {
    await lockAccountEndpoints(tx, input.accountId);
    const enabled = await tx.webhookEndpoint.count({ where: { accountId: input.accountId, disabledAt: null } });
    if (enabled >= MAX_ENDPOINTS_PER_ACCOUNT)
      return { status: "limit_reached" as const, limit: MAX_ENDPOINTS_PER_ACCOUNT };
    const endpoint = await tx.webhookEndpoint.create({
      data: { accountId: input.accountId, url: input.url, eventTypes, secret: sealSecret(secret) },
      select: { id: true },
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "webhook.endpoint_add",
        targetType: "webhook_endpoint",
        targetId: endpoint.id,
        details: { accountId: input.accountId, url: input.url, eventTypes },
      },
      tx,
    );
    return { status: "added" as const, endpointId: endpoint.id, url: input.url, eventTypes, secret };
  });
}
