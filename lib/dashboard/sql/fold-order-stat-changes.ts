// The worker's periodic look (lib/fulfilment/start-periodic-looks.ts): the changes the trigger
// count_order_stats appended since the last look, summed into the overview's counts (order_stats)
// and margins (margin_stats, from the changes of live completed orders) and removed, in one
// transaction, so a reader sees each change once, before or after. Two looks at once take disjoint
// changes (a deleted change is skipped by the other's DELETE) and update the rows in one order
// (sorted), so they never deadlock.
import { getPrisma } from "../../db/prisma";

/** How many changes it folded in. */
export async function foldOrderStatChanges(): Promise<number> {
  return getPrisma().$transaction(async (tx) => {
    const folded = await tx.$queryRaw<{ margin: boolean; id: bigint; orders: number; changes: number }[]>`
      WITH moved AS (
        DELETE FROM order_stat_changes
        RETURNING hour, livemode, status, order_created, took_ds, orders, amount_cents, line_slug, supplier, cost_cents
      ), summed AS (
        SELECT hour, livemode, status, order_created, took_ds,
               sum(orders)::int AS orders, sum(amount_cents)::bigint AS amount_cents, count(*)::int AS changes
          FROM moved
         GROUP BY hour, livemode, status, order_created, took_ds
      ), counts AS (
        INSERT INTO order_stats AS s (hour, livemode, status, order_created, took_ds, orders, amount_cents)
        SELECT hour, livemode, status, order_created, took_ds, orders, amount_cents
          FROM summed
         ORDER BY hour, livemode, status, order_created, took_ds
        ON CONFLICT (hour, livemode, status, order_created, took_ds)
          DO UPDATE SET orders = s.orders + EXCLUDED.orders, amount_cents = s.amount_cents + EXCLUDED.amount_cents
        RETURNING s.id, s.orders
      ), margins AS (
        INSERT INTO margin_stats AS m (hour, line_slug, supplier, orders, revenue_cents, cost_cents)
        SELECT hour, line_slug, supplier, sum(orders)::int, sum(amount_cents)::bigint, sum(cost_cents)::bigint
          FROM moved
         WHERE line_slug IS NOT NULL
         GROUP BY hour, line_slug, supplier
         ORDER BY hour, line_slug, supplier
        ON CONFLICT (hour, line_slug, supplier)
          DO UPDATE SET orders = m.orders + EXCLUDED.orders, revenue_cents = m.revenue_cents + EXCLUDED.revenue_cents,
                        cost_cents = m.cost_cents + EXCLUDED.cost_cents
        RETURNING m.id, m.orders
      )
      SELECT false AS margin, id, orders, (SELECT sum(changes)::int FROM summed) AS changes FROM counts
      UNION ALL
      SELECT true, id, orders, NULL FROM margins`;
    // A key no order is in any more (an hour's pending orders all settled) goes.
    const emptied = (margin: boolean) =>
      folded.filter((row) => row.margin === margin && row.orders === 0).map((row) => row.id);
    if (emptied(false).length)
      await tx.$executeRaw`DELETE FROM order_stats WHERE id = ANY(${emptied(false)}::bigint[]) AND orders = 0`;
    if (emptied(true).length)
      await tx.$executeRaw`DELETE FROM margin_stats WHERE id = ANY(${emptied(true)}::bigint[]) AND orders = 0`;
    return folded.find((row) => !row.margin)?.changes ?? 0;
  });
}
