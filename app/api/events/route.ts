import { publicRoute } from "@/lib/http/public-route";
import { completedInvoice } from "@/lib/openapi/example-values";
import { EventsQuery, EventsResponse } from "@/lib/api-schemas/webhook-schemas";
import { listWebhookEvents } from "@/lib/webhooks/sql/list-webhook-events";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "listEvents",
  path: "/events",
  tag: "Webhooks",
  summary: "Your webhook events after a sequence number, oldest first",
  description:
    "Every event of your account, whether or not it has webhook endpoints and whether or not they answered. Sequence " +
    "numbers start at 1 and have no gaps: keep the last one you processed and ask for `?after=` it to catch up.",
  query: EventsQuery,
  response: EventsResponse,
  example: {
    query: { after: "41", limit: "100" },
    responses: {
      events: {
        summary: "One event after sequence 41",
        value: {
          success: true,
          events: [
            {
              id: "evt_x4Zq8tW0Yb2cD5eF7gH9iJ",
              sequence: 42,
              type: "order.completed",
              timestamp: "2026-01-15T09:30:02.400Z",
              livemode: true,
              data: completedInvoice,
            },
          ],
          hasMore: false,
          nextAfter: 42,
        },
      },
    },
  },
  clientSample: (call) => `const { events, nextAfter } = await ${call};`,
  errors: [],
  handle: async ({ caller, query }) => {
    const after = query.after ?? 0;
    const { events, hasMore } = await listWebhookEvents(caller.accountId, after, query.limit ?? 100);
    return {
      success: true,
      events: events.map((event) => ({ ...event, livemode: caller.livemode })),
      hasMore,
      nextAfter: events.at(-1)?.sequence ?? after,
    };
  },
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
