// Everything the order page shows: the stored order (as the invoice the client sees, and the
// internal fields), its account and key, the event timeline, the ledger entries it caused, and the
// admin actions taken on it. Codes are never decrypted here: the page shows how many were delivered.
import { getPrisma } from "../db/prisma";
import type { Order } from "../generated/prisma/client";
import type { LedgerKind, OrderStatus } from "../generated/prisma/enums";
import { toInvoice, type Invoice } from "../orders/build-invoice";

export interface OrderEventLine {
  id: number;
  fromStatus: OrderStatus | null;
  toStatus: OrderStatus;
  reason: string;
  data: unknown;
  createdAt: Date;
}

export interface OrderLedgerLine {
  id: number;
  kind: LedgerKind;
  amountCents: number;
  balanceAfterCents: number;
  actor: string;
  reason: string | null;
  createdAt: Date;
}

export interface OrderAuditLine {
  id: number;
  actor: string;
  action: string;
  details: unknown;
  createdAt: Date;
}

/** The stored order, money in cents as numbers. */
export type OrderDetailRecord = Omit<Order, "unitPriceCents" | "amountCents"> & { unitPriceCents: number; amountCents: number };

export interface OrderDetail {
  order: OrderDetailRecord;
  /** What GET /orders/:orderId answers its owner, without the codes. */
  invoice: Invoice;
  account: { id: number; telegramUsername: string | null; displayName: string | null; balanceCents: number };
  apiKeyPrefix: string | null;
  codes: { reserved: number; delivered: number };
  events: OrderEventLine[];
  ledger: OrderLedgerLine[];
  audit: OrderAuditLine[];
}

function invoiceOf(order: OrderDetailRecord): Invoice {
  return toInvoice({
    id: order.id,
    public_id: order.publicId,
    account_id: order.accountId,
    api_key_id: order.apiKeyId,
    trxid: order.trxid,
    idempotency_key: order.idempotencyKey,
    request_fingerprint: order.requestFingerprint,
    catalog_id: order.catalogId,
    line_slug: order.lineSlug,
    line_kind: order.lineKind,
    pack_name: order.packName,
    unit_price_cents: order.unitPriceCents,
    quantity: order.quantity,
    amount_cents: order.amountCents,
    user_id: order.userId,
    zone_id: order.zoneId,
    server_id: order.serverId,
    sent_user_id: order.sentUserId,
    sent_zone_id: order.sentZoneId,
    sent_server_id: order.sentServerId,
    order_created: order.orderCreated,
    status: order.status,
    error: order.error,
    refunded: order.refunded,
    needs_admin: order.needsAdmin,
    created_at: order.createdAt,
    finished_at: order.finishedAt,
  });
}

export async function readOrderDetail(orderId: number): Promise<OrderDetail | undefined> {
  if (!Number.isSafeInteger(orderId) || orderId < 1 || orderId > 2_147_483_647) return undefined;
  const prisma = getPrisma();
  const found = await prisma.order.findUnique({
    where: { id: orderId },
    include: {
      account: { select: { id: true, telegramUsername: true, displayName: true, balanceCents: true } },
      apiKey: { select: { prefix: true } },
      events: { select: { id: true, fromStatus: true, toStatus: true, reason: true, data: true, createdAt: true }, orderBy: { id: "asc" } },
      ledgerEntries: {
        select: { id: true, kind: true, amountCents: true, balanceAfterCents: true, actor: true, reason: true, createdAt: true },
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
  const { account, apiKey, events, ledgerEntries, unitPriceCents, amountCents, ...rest } = found;
  const order = { ...rest, unitPriceCents: Number(unitPriceCents), amountCents: Number(amountCents) };
  const codes = (status: "reserved" | "delivered") => codeCounts.find((group) => group.status === status)?._count._all ?? 0;
  return {
    order,
    invoice: invoiceOf(order),
    account: { ...account, balanceCents: Number(account.balanceCents) },
    apiKeyPrefix: apiKey?.prefix ?? null,
    codes: { reserved: codes("reserved"), delivered: codes("delivered") },
    events,
    ledger: ledgerEntries.map((entry) => ({ ...entry, amountCents: Number(entry.amountCents), balanceAfterCents: Number(entry.balanceAfterCents) })),
    audit,
  };
}
