import { getPrisma } from "../db/prisma";

export interface WebhookEndpointSummary {
  id: number;
  accountId: number;
  url: string;
  eventTypes: string[];
  createdAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
  /** No delivery is attempted before this (failures in a row pause the endpoint). */
  pausedUntil: Date | null;
  pendingDeliveries: number;
  /** False for a test endpoint: it receives test events only. */
  livemode: boolean;
  lastAttemptAt: Date | null;
  lastHttpStatus: number | null;
  lastError: string | null;
}

/**
 * An account's endpoints, its test endpoints included (test mode), with their delivery state,
 * oldest first; "all" for the dashboard (every account's, newest first, at most 200). Secrets are
 * never listed.
 */
export async function listWebhookEndpoints(accountId: number | "all"): Promise<WebhookEndpointSummary[]> {
  const endpoints = await getPrisma().webhookEndpoint.findMany({
    where: accountId === "all" ? {} : { account: { OR: [{ id: accountId }, { liveAccountId: accountId }] } },
    orderBy: { id: accountId === "all" ? "desc" : "asc" },
    take: 200,
    select: {
      id: true,
      accountId: true,
      url: true,
      eventTypes: true,
      createdAt: true,
      disabledAt: true,
      disabledReason: true,
      failingSince: true,
      pausedUntil: true,
      account: { select: { liveAccountId: true } },
      _count: { select: { deliveries: { where: { status: "pending" } } } },
      // A delivery's lastAttemptAt is written with its newest attempt, so the newest attempt of the
      // endpoint is the newest attempt of its most recently attempted delivery.
      deliveries: {
        where: { lastAttemptAt: { not: null } },
        orderBy: [{ lastAttemptAt: "desc" }, { id: "desc" }],
        take: 1,
        select: {
          attemptRecords: {
            orderBy: { id: "desc" },
            take: 1,
            select: { attemptedAt: true, httpStatus: true, error: true },
          },
        },
      },
    },
  });
  return endpoints.map(({ _count, deliveries, account, ...endpoint }) => {
    const last = deliveries[0]?.attemptRecords[0];
    return {
      ...endpoint,
      livemode: account.liveAccountId === null,
      pendingDeliveries: _count.deliveries,
      lastAttemptAt: last?.attemptedAt ?? null,
      lastHttpStatus: last?.httpStatus ?? null,
      lastError: last?.error ?? null,
    };
  });
}
