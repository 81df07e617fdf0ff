// Fulfilment jobs live in graphile-worker's queue, added with SQL inside the caller's transaction,
// so an order and its job commit together or not at all. The placement adds the first job itself
// (place_order, keyed `place:<order id>`); this module adds the worker's re-polls.
//
// A re-poll is keyed `order:<id>`: if a crashed attempt of the same order is retried while a re-poll
// waits, its own re-poll replaces the waiting one instead of starting a second poll chain. add_job
// clears the key from running jobs with an UPDATE whose cached generic plan can scan the whole
// queue, so its statements are planned afresh here (force_custom_plan, transaction-local): that
// UPDATE then uses the key's index whatever the queue's length. fulfilOrder is safe to run twice
// either way (guarded transitions, settle-order.ts).
import type pg from "pg";
import { sql } from "../../db/run-sql";

/** The task name; place_order (prisma/functions/place_order.sql) adds the first job under the same name. */
export const FULFIL_ORDER_TASK = "fulfil_order";

/** Queues the order's fulfilment again at `runAt` (the worker's re-poll). */
export async function enqueueFulfilment(
  client: Pick<pg.PoolClient, "query">,
  orderId: number,
  runAt: Date,
): Promise<void> {
  // The MATERIALIZED CTE runs set_config before add_job is called.
  await client.query(
    sql`WITH custom_plans AS MATERIALIZED (SELECT set_config('plan_cache_mode', 'force_custom_plan', true))
        SELECT graphile_worker.add_job(${FULFIL_ORDER_TASK}, json_build_object('orderId', ${orderId}::int),
                                       job_key := ${`order:${orderId}`}, run_at := ${runAt}::timestamptz,
                                       max_attempts := 25)
          FROM custom_plans`,
  );
}
