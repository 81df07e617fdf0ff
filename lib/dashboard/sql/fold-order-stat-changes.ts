// The worker's periodic look (lib/fulfilment/start-periodic-looks.ts): the changes the trigger
// count_order_stats appended since the last look, summed into the overview's counts (order_stats)
// and removed, in one transaction, so a reader sees each change once, before or after. Two looks at
// once take disjoint changes (a deleted change is skipped by the other's DELETE) and update the
// counts in one order (sorted), so they never deadlock.
import { getPrisma } from "../../db/prisma";

/** How many changes it folded in. */
export async function foldOrderStatChanges(): Promise<number> {
  return getPrisma().$transaction(async (tx) => {
    const folded = await tx.$queryRaw<{ id: bigint; orders: number; changes: number }[]>`
      WITH moved AS (
        DELETE FROM order_stat_changes RETURNING hour, livemode, status, order_created, took_ds, orders, amount_cents
      ), summed AS (
        SELECT hour, livemode, status, order_created, took_ds,
               sum(orders)::int AS orders, sum(amount_cents)::bigint AS amount_cents, count(*)::int AS changes
          FROM moved
         GROUP BY hour, livemode, status, order_created, took_ds
      )
      INSERT INTO order_stats AS s (hour, livemode, status, order_created, took_ds, orders, amount_cents)
      SELECT hour, livemode, status, order_created, took_ds, orders, amount_cents
        FROM summed
       ORDER BY hour, livemode, status, order_created, took_ds
      ON CONFLICT (hour, livemode, status, order_created, took_ds)
        DO UPDATE SET orders = s.orders + EXCLUDED.orders, amount_cents = s.amount_cents + EXCLUDED.amount_cents
      RETURNING s.id, s.orders, (SELECT sum(changes)::int FROM summed) AS changes`;
    // A key no order is in any more (an hour's pending orders all settled) goes.
    const emptied = folded.filter((row) => row.orders === 0).map((row) => row.id);
    if (emptied.length)
      await tx.$executeRaw`DELETE FROM order_stats WHERE id = ANY(${emptied}::bigint[]) AND orders = 0`;
    return folded[0]?.changes ?? 0;
  });
}
