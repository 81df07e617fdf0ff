// Fulfilment jobs live in graphile-worker's queue, added with SQL inside the caller's transaction,
// so an order and its job commit together or not at all.
import type pg from "pg";

export const FULFIL_ORDER_TASK = "fulfil_order";

export async function enqueueFulfilment(
  client: Pick<pg.PoolClient, "query">,
  orderId: number,
  runAt?: Date,
): Promise<void> {
  await client.query(
    `SELECT graphile_worker.add_job($1, json_build_object('orderId', $2::int), job_key := $3, run_at := COALESCE($4::timestamptz, now()), max_attempts := 25)`,
    [FULFIL_ORDER_TASK, orderId, `order:${orderId}`, runAt ?? null],
  );
}
