// The one order type: Prisma's Order but for the columns only the worker and the database use, with
// cents as numbers; each view picks from it. Raw statements select `(order_record(o)).*`
// (prisma/functions/order_record.sql), which gives these fields under these names, so pg hands back
// the record itself. A new column of orders is part of the record unless it is named below.
import type { Order } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";
import type { OrderMetadata } from "./order-metadata";

/** The columns of orders that order_record() leaves out (tests/integration/record-functions.test.ts holds it to this). */
export const COLUMNS_OUTSIDE_ORDER_RECORD = [
  "keySeq",
  "productId",
  "supplierRef",
  "attempts",
  "updatedAt",
  "supplierId",
  "triedSupplierIds",
  "costCents",
] as const;

export type OrderRecord = { metadata: OrderMetadata | null } & BigintsAsNumbers<
  Omit<Order, (typeof COLUMNS_OUTSIDE_ORDER_RECORD)[number] | "metadata">
>;
