import { publicRoute } from "@/lib/http/public-route";
import { ApiError } from "@/lib/http/errors";
import { ReplayBody, ReplayResponse } from "@/lib/api-schemas/webhook-schemas";
import { replayWebhookEvents } from "@/lib/webhooks/sql/replay-webhook-events";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const POST = publicRoute({
  method: "POST",
  operationId: "replayWebhooks",
  path: "/webhooks/replay",
  tag: "Webhooks",
  summary: "Re-send events to your webhook endpoints",
  description:
    "A sequence range (`after` < sequence <= `through`) or a list of `eventIds`, at most 1000 events per call, to every " +
    "enabled endpoint subscribed to each event's type, or to `endpointId` only. Each event keeps its id as `webhook-id`. " +
    "An event still waiting for an endpoint is not queued for it again; an account queues at most 10,000 replayed " +
    "deliveries an hour (`deliveries` says how many this call queued).",
  body: ReplayBody,
  documentRequired: [["after", "through", "eventIds"]],
  response: ReplayResponse,
  example: {
    body: { after: 40, through: 42 },
    responses: {
      queued: { summary: "Two events re-sent to one endpoint", value: { success: true, events: 2, deliveries: 2 } },
    },
  },
  clientSample: (call) => `const { deliveries } = await ${call};`,
  errors: ["ENDPOINT_NOT_FOUND", "REPLAY_QUOTA_EXCEEDED"],
  handle: async ({ caller, body }) => {
    const result = await replayWebhookEvents({ accountId: caller.accountId, ...body });
    if (result.status === "endpoint_not_found") throw new ApiError("ENDPOINT_NOT_FOUND");
    if (result.status === "quota_exhausted")
      throw new ApiError("REPLAY_QUOTA_EXCEEDED", { headers: { "retry-after": String(result.retryAfterSeconds) } });
    return { success: true, events: result.events, deliveries: result.deliveries };
  },
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
