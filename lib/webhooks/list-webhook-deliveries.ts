import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { WebhookDeliveryStatus } from "../generated/prisma/enums";

interface WebhookAttemptView {
  attemptedAt: Date;
  httpStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookDeliveryView {
  id: number;
  accountId: number;
  endpointId: number;
  url: string;
  eventId: string;
  sequence: number;
  type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  failReason: string | null;
  createdAt: Date;
  attemptLog: WebhookAttemptView[];
}

const STATUSES: readonly string[] = Object.values(WebhookDeliveryStatus);

/** The dashboard's delivery log, newest first, with every attempt and its answer. */
export async function listWebhookDeliveries(filters: {
  accountId?: number;
  endpointId?: number;
  status?: string;
  limit?: number;
}): Promise<WebhookDeliveryView[]> {
  // An unknown status filter matches nothing, as it did when the filter was compared as text.
  if (filters.status !== undefined && !STATUSES.includes(filters.status)) return [];
  const deliveries = await getPrisma().webhookDelivery.findMany({
    where: {
      endpointId: filters.endpointId,
      status: filters.status as WebhookDeliveryStatus | undefined,
      event: filters.accountId === undefined ? undefined : { accountId: filters.accountId },
    },
    orderBy: { id: "desc" },
    take: Math.min(filters.limit ?? 50, 200),
    select: {
      id: true,
      endpointId: true,
      status: true,
      attempts: true,
      nextAttemptAt: true,
      deliveredAt: true,
      failReason: true,
      createdAt: true,
      endpoint: { select: { url: true } },
      event: { select: { accountId: true, publicId: true, sequence: true, type: true } },
      attemptRecords: {
        orderBy: { id: "asc" },
        select: { attemptedAt: true, httpStatus: true, responseBody: true, error: true, durationMs: true },
      },
    },
  });
  return deliveries.map(({ id, endpoint, event, attemptRecords, ...delivery }) => ({
    ...delivery,
    id: numberFromDb(id),
    accountId: event.accountId,
    url: endpoint.url,
    eventId: event.publicId,
    sequence: numberFromDb(event.sequence),
    type: event.type,
    attemptLog: attemptRecords,
  }));
}
