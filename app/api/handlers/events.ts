import { publicRoute } from "@/lib/http/public-route";
import { ApiError } from "@/lib/http/errors";
import { EventsQuery, EventsResponse, ReplayBody, ReplayResponse } from "@/lib/api-schemas/webhook-schemas";
import { listWebhookEvents } from "@/lib/webhooks/sql/list-webhook-events";
import { replayWebhookEvents } from "@/lib/webhooks/sql/replay-webhook-events";

export const getEvents = publicRoute({
  method: "GET",
  path: "/events",
  tag: "Webhooks",
  summary: "Your webhook events after a sequence number, oldest first",
  description:
    "Every event of your account, whether or not it has webhook endpoints and whether or not they answered. Sequence " +
    "numbers start at 1 and have no gaps: keep the last one you processed and ask for `?after=` it to catch up.",
  query: EventsQuery,
  response: EventsResponse,
  errors: [],
  handle: async ({ caller, query }) => {
    const after = query.after ?? 0;
    const { events, hasMore } = await listWebhookEvents(caller.accountId, after, query.limit ?? 100);
    return { success: true, events, hasMore, nextAfter: events.length ? events[events.length - 1].sequence : after };
  },
});

export const postWebhookReplay = publicRoute({
  method: "POST",
  path: "/webhooks/replay",
  tag: "Webhooks",
  summary: "Re-send events to your webhook endpoints",
  description:
    "A sequence range (`after` < sequence <= `through`) or a list of `eventIds`, at most 1000 events per call, to every " +
    "enabled endpoint subscribed to each event's type, or to `endpointId` only. Each event keeps its id as `webhook-id`.",
  body: ReplayBody,
  response: ReplayResponse,
  errors: ["NOT_FOUND"],
  handle: async ({ caller, body }) => {
    const result = await replayWebhookEvents({ accountId: caller.accountId, ...body });
    if (result.status === "endpoint_not_found") throw new ApiError("NOT_FOUND");
    return { success: true, events: result.events, deliveries: result.deliveries };
  },
});
