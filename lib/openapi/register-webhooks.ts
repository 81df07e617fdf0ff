// The OpenAPI document's `webhooks`: one entry per event type with its payload, the Standard
// Webhooks headers, and what the receiver must answer.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { livemode } from "../api-schemas/fields";
import { WEBHOOK_EVENT_DOCS } from "../api-schemas/webhook-schemas";
import { RETRY_SCHEDULE_MS } from "../webhooks/retry-schedule";

const WebhookHeaders = z.object({
  "webhook-id": z
    .string()
    .meta({ description: "The event id (evt_...): the same on every attempt and replay; dedupe on it" }),
  "webhook-timestamp": z.string().meta({ description: "Unix seconds when this attempt was signed" }),
  "webhook-signature": z.string().meta({
    description:
      "Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the endpoint's whsec_ secret; two signatures " +
      "for a day after /webhook secret rotates it (the new and the previous secret)",
  }),
});

function human(ms: number): string {
  if (ms === 0) return "at once";
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  return `${ms / 3_600_000} h`;
}

export function registerWebhooks(registry: OpenAPIRegistry): void {
  const schedule = RETRY_SCHEDULE_MS.map(human).join(", ");
  for (const [type, doc] of Object.entries(WEBHOOK_EVENT_DOCS)) {
    registry.registerWebhook({
      method: "post",
      path: type,
      // "order.completed" -> "orderCompletedWebhook": what your receiver handles, named like the API's operations.
      operationId: `${type.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase())}Webhook`,
      tags: ["Webhooks"],
      summary: doc.summary,
      description:
        "Signed per the Standard Webhooks specification: verify with the `standardwebhooks` package and your endpoint's " +
        "`whsec_` secret, and reject timestamps older than 5 minutes. Only a 2xx answer within 15 s counts; redirects are " +
        `not followed. Attempts: ${schedule} (each wait ±10%), longer when a 429 or 503 carries Retry-After. A 410 ` +
        "disables the endpoint at once; an endpoint failing every attempt for 3 days is disabled and you are told in the bot. " +
        "Missed events: GET /events?after=<sequence>.",
      request: {
        headers: WebhookHeaders,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                type: z.literal(type),
                timestamp: z.string().meta({ description: "When the event happened (ISO 8601)" }),
                livemode,
                data: doc.data,
              }),
            },
          },
        },
      },
      responses: { 200: { description: "Any 2xx: delivered" }, 410: { description: "Gone: disables the endpoint" } },
    });
  }
}
