// The dashboard's refund queue: open requests first (oldest first, the order they are owed an
// answer in), then the latest decided ones.
import { getPrisma } from "../db/prisma";
import { numberFromDb, nullableNumberFromDb } from "../db/number-from-db";

const DECIDED_SHOWN = 50;

export async function listRefundRequests() {
  const prisma = getPrisma();
  const select = {
    id: true,
    reason: true,
    status: true,
    requestedBy: true,
    refundCents: true,
    decisionNote: true,
    restocked: true,
    decidedBy: true,
    decidedAt: true,
    createdAt: true,
    order: {
      select: {
        id: true,
        publicId: true,
        accountId: true,
        lineSlug: true,
        lineKind: true,
        packName: true,
        quantity: true,
        amountCents: true,
        finishedAt: true,
        livemode: true,
      },
    },
  } as const;
  const [open, decided] = await Promise.all([
    prisma.refundRequest.findMany({ select, where: { status: "requested" }, orderBy: { createdAt: "asc" } }),
    prisma.refundRequest.findMany({
      select,
      where: { status: { not: "requested" } },
      orderBy: { decidedAt: "desc" },
      take: DECIDED_SHOWN,
    }),
  ]);
  const toView = (row: (typeof open)[number]) => ({
    ...row,
    refundCents: nullableNumberFromDb(row.refundCents),
    order: { ...row.order, amountCents: numberFromDb(row.order.amountCents) },
  });
  return { open: open.map(toView), decided: decided.map(toView) };
}

export type RefundRequestItem = Awaited<ReturnType<typeof listRefundRequests>>["open"][number];
