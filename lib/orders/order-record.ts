// The one order type: Prisma's Order, the fields the API, the worker, the webhooks, the dashboard
// and the bot read, with cents as numbers; each view picks from it. Raw statements select
// `(order_record(o)).*` (prisma/functions/order_record.sql), which gives these fields under these
// names, so pg hands back the record itself.
import type { Order } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";
import type { OrderMetadata } from "./order-metadata";

export type OrderRecord = { metadata: OrderMetadata | null } & BigintsAsNumbers<
  Pick<
    Order,
    | "id"
    | "publicId"
    | "accountId"
    | "apiKeyId"
    | "trxid"
    | "idempotencyKey"
    | "requestFingerprint"
    | "catalogId"
    | "lineSlug"
    | "lineKind"
    | "packName"
    | "unitPriceCents"
    | "quantity"
    | "amountCents"
    | "userId"
    | "zoneId"
    | "serverId"
    | "sentUserId"
    | "sentZoneId"
    | "sentServerId"
    | "orderCreated"
    | "status"
    | "error"
    | "refunded"
    | "needsAdmin"
    | "supplier"
    | "createdAt"
    | "finishedAt"
    | "livemode"
    | "refundRequested"
  >
>;
