// Everything the order page shows: the stored order (as the invoice the client sees, and the
// internal fields), its account and key, the event timeline, the ledger entries it caused, and the
// admin actions taken on it. Codes are never decrypted here: the page shows how many were delivered.
import { metadataFromDb } from "../orders/order-metadata";
import { getPrisma } from "../db/prisma";
import type { Order } from "../generated/prisma/client";
import { nullableNumberFromDb, numberFromDb, type BigintsAsNumbers } from "../db/number-from-db";
import type { LedgerKind, OrderStatus } from "../generated/prisma/enums";
import { toInvoice, type Invoice } from "../orders/sql/build-invoice";

interface OrderEventLine {
  id: number;
  fromStatus: OrderStatus | null;
  toStatus: OrderStatus;
  reason: string;
  data: unknown;
  createdAt: Date;
}

interface OrderLedgerLine {
  id: number;
  kind: LedgerKind;
  amountCents: number;
  balanceAfterCents: number;
  actor: string;
  reason: string | null;
  createdAt: Date;
}

interface OrderAuditLine {
  id: number;
  actor: string;
  action: string;
  details: unknown;
  createdAt: Date;
}

/** The stored order, money in cents as numbers. */
type OrderDetailRecord = BigintsAsNumbers<Order>;

export interface OrderDetail {
  order: OrderDetailRecord;
  /** What GET /orders/:orderId answers its owner, without the codes. */
  invoice: Invoice;
  account: { id: number; telegramUsername: string | null; displayName: string | null; balanceCents: number };
  apiKeyPrefix: string | null;
  codes: { reserved: number; delivered: number; revoked: number };
  events: OrderEventLine[];
  ledger: OrderLedgerLine[];
  audit: OrderAuditLine[];
}

export async function readOrderDetail(orderId: number): Promise<OrderDetail | undefined> {
  if (!Number.isSafeInteger(orderId) || orderId < 1 || orderId > 2_147_483_647) return undefined;
  const prisma = getPrisma();
  const found = await prisma.order.findUnique({
    where: { id: orderId },
    include: {
      account: { select: { id: true, telegramUsername: true, displayName: true, balanceCents: true } },
      apiKey: { select: { prefix: true } },
      refundRequest: {
        select: {
          id: true,
          orderId: true,
          reason: true,
          status: true,
          refundCents: true,
          decisionNote: true,
          decidedAt: true,
          createdAt: true,
        },
      },
      events: {
        select: { id: true, fromStatus: true, toStatus: true, reason: true, data: true, createdAt: true },
        orderBy: { id: "asc" },
      },
      ledgerEntries: {
        select: {
          id: true,
          kind: true,
          amountCents: true,
          balanceAfterCents: true,
          actor: true,
          reason: true,
          createdAt: true,
        },
        orderBy: { id: "asc" },
      },
    },
  });
  if (!found) return undefined;
  const [codeCounts, audit] = await Promise.all([
    prisma.inventoryCode.groupBy({ by: ["status"], where: { orderId }, _count: { _all: true } }),
    prisma.auditLog.findMany({
      select: { id: true, actor: true, action: true, details: true, createdAt: true },
      where: { targetType: "order", targetId: String(orderId) },
      orderBy: { id: "asc" },
    }),
  ]);
  const {
    account,
    apiKey,
    events,
    ledgerEntries,
    refundRequest,
    unitPriceCents,
    amountCents,
    costCents,
    metadata,
    ...rest
  } = found;
  const order = {
    ...rest,
    metadata: metadataFromDb(metadata),
    unitPriceCents: numberFromDb(unitPriceCents),
    amountCents: numberFromDb(amountCents),
    costCents: nullableNumberFromDb(costCents),
  };
  const codes = (status: "reserved" | "delivered" | "revoked") =>
    codeCounts.find((group) => group.status === status)?._count._all ?? 0;
  return {
    order,
    invoice: toInvoice(
      order,
      undefined,
      refundRequest ? { ...refundRequest, refundCents: nullableNumberFromDb(refundRequest.refundCents) } : undefined,
    ),
    account: { ...account, balanceCents: numberFromDb(account.balanceCents) },
    apiKeyPrefix: apiKey?.prefix ?? null,
    codes: { reserved: codes("reserved"), delivered: codes("delivered"), revoked: codes("revoked") },
    events,
    ledger: ledgerEntries.map((entry) => ({
      ...entry,
      amountCents: Number(entry.amountCents),
      balanceAfterCents: Number(entry.balanceAfterCents),
    })),
    audit,
  };
}
