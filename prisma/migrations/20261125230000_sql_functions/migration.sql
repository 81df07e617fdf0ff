-- The row type order_record() returns. The SQL functions themselves live in prisma/functions/, which
-- the migrate command applies after the migrations (docs/data-layer.md).

-- An order as the API, the worker and the webhooks read it: camelCase fields, cents as bigint.
-- Statements select `(order_record(o)).*`; the function is inlined, so it costs nothing per row.
CREATE TYPE order_record AS (
  "id" integer,
  "publicId" text,
  "accountId" integer,
  "apiKeyId" integer,
  "trxid" text,
  "idempotencyKey" text,
  "requestFingerprint" text,
  "catalogId" text,
  "lineSlug" text,
  "lineKind" "LineKind",
  "packName" text,
  "unitPriceCents" bigint,
  "quantity" integer,
  "amountCents" bigint,
  "userId" text,
  "zoneId" text,
  "serverId" text,
  "sentUserId" text,
  "sentZoneId" text,
  "sentServerId" text,
  "orderCreated" boolean,
  "status" "OrderStatus",
  "error" text,
  "refunded" boolean,
  "needsAdmin" boolean,
  "supplier" text,
  "createdAt" timestamptz,
  "finishedAt" timestamptz
);
