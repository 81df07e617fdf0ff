import { getPrisma, type PrismaDb } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import type { OrderRecord } from "../orders/order-record";

/** An order as the bot's /orders lists it. */
export type OrderLine = Pick<
  OrderRecord,
  "publicId" | "lineSlug" | "packName" | "quantity" | "amountCents" | "status" | "error" | "refunded" | "createdAt"
>;

/** The account's newest orders (/orders), including those refused at placement. */
export async function listRecentOrders(
  accountId: number,
  limit = 10,
  db: PrismaDb = getPrisma(),
): Promise<OrderLine[]> {
  const rows = await db.order.findMany({
    where: { accountId },
    orderBy: { id: "desc" },
    take: limit,
    select: {
      publicId: true,
      lineSlug: true,
      packName: true,
      quantity: true,
      amountCents: true,
      status: true,
      error: true,
      refunded: true,
      createdAt: true,
    },
  });
  return rows.map((row) => ({ ...row, amountCents: numberFromDb(row.amountCents) }));
}
