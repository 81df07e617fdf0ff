// Values several operations' examples share (each example is in its route file's spec). Catalog
// values are read from the demo catalog (`npm run db:seed`, lib/seed/demo-catalog.ts) so an example
// can be sent as it is with the demo key.
import { demoLine, demoPack } from "../seed/demo-catalog";

export const ORDER_ID = "SVCAPI-BR-0K3M9QZT-7F3KQ1";
export const PLACED_AT = "2026-01-15T09:30:00.000Z";
export const BR_PACK = "SVCBR60";
const br60 = demoPack(BR_PACK);

/** The reseller's own references the example order carries (POST /orders' `metadata`). */
export const ORDER_METADATA = { customerId: "cus_8812", cartId: "cart-2026-0042" };

/** The invoice of an order for the demo BR pack, just placed. */
export const brInvoice = {
  orderCreated: true,
  orderId: ORDER_ID,
  trxid: "INV-10001",
  status: "processing",
  game: br60.line.slug,
  packName: br60.pack.packName,
  pid: BR_PACK,
  amountUsd: br60.pack.priceCents / 100,
  quantity: 1,
  userId: "5123456789",
  metadata: ORDER_METADATA,
  createdAt: PLACED_AT,
  livemode: true,
};

/** The same order, completed. */
export const completedInvoice = { ...brInvoice, status: "completed", durationSec: 2.4 };

/** When the example packs last changed (their `updatedAt`). */
export const CATALOG_CHANGED_AT = "2026-01-14T16:00:00.000Z";

/** A demo pack as GET /products lists it, in stock as seeded. */
function productExample(id: string) {
  const { line, pack } = demoPack(id);
  return {
    id,
    slug: line.slug,
    gameName: line.gameName,
    serviceName: line.productName,
    packName: pack.packName,
    kind: line.kind,
    price: pack.priceCents / 100,
    currency: "USD",
    orderable: true,
    ...(pack.codes === undefined ? {} : { stock: pack.codes }),
    updatedAt: CATALOG_CHANGED_AT,
  };
}

/** GET /products' (and GET /catalog's) rows: a top-up pack and a game-key pack. */
export const products = [productExample(BR_PACK), productExample("SVCGKINDIE")];

/** The demo BR pack switched off on the dashboard, as GET /products/{id} and product.updated show it. */
export const switchedOffProduct = {
  ...productExample(BR_PACK),
  orderable: false,
  unorderableReason: "PRODUCT_DISABLED",
  updatedAt: "2026-01-15T10:05:00.000Z",
};

/** A demo line as GET /services lists it, with the first `serverIds` of its server choices. */
export function serviceExample(slug: string, serverIds = 0) {
  const line = demoLine(slug);
  return {
    productName: line.productName,
    slug: line.slug,
    gameName: line.gameName,
    kind: line.kind,
    required: line.requiredFields,
    status: "active",
    ...(line.serverIdOptions
      ? { serverIdOptions: line.serverIdOptions.slice(0, serverIds).map(({ value, label }) => ({ value, label })) }
      : {}),
  };
}

/** The demo BR order cancelled by its holder before the worker sent it to a supplier. */
export const cancelledByResellerInvoice = {
  ...brInvoice,
  status: "cancelled",
  error: "CANCELLED BY RESELLER",
  refunded: true,
  durationSec: 0.6,
};

/** The completed order once its holder asked for a refund. */
export const refundRequestedInvoice = {
  ...completedInvoice,
  refundRequest: {
    status: "requested",
    reason: "The player says the diamonds never arrived",
    requestedAt: "2026-01-15T10:02:00.000Z",
  },
};
