// Fulfilment jobs live in graphile-worker's queue, added with SQL inside the caller's transaction,
// so an order and its job commit together or not at all.
//
// Why plan_cache_mode: add_job's plpgsql first clears the job's key from running jobs. Planned once
// per connection while the queue was short, that UPDATE's cached generic plan seq-scans the whole
// queue on every call, key or no key (a hash join that looks for one running job before it looks
// at the keys), so placement slowed down as the queue grew: 5-7 ms per add_job with 20,000 jobs
// queued against under 1 ms planned for the queue as it is (bench/RESULTS.md, sections 3 and 8).
// set_config(..., true) lasts to the end of the caller's transaction: nothing else runs after the
// job in a placement but the invoice's read.
//
// Placement adds its job without a job_key. A key buys nothing there: the order was created in the
// same transaction, so no other job can exist for it yet.
//
// A re-poll (runAt given: the worker asks the supplier again later) keeps the key `order:<id>`:
// if a crashed attempt of the same order is retried while a re-poll waits, its own re-poll replaces
// the waiting one instead of starting a second poll chain. These are the worker's rare path, not
// the API's. fulfilOrder is safe to run twice either way (guarded transitions, settle-order.ts).
import type pg from "pg";

export const FULFIL_ORDER_TASK = "fulfil_order";

// The MATERIALIZED CTE runs set_config before add_job is called.
const CUSTOM_PLANS = `WITH custom_plans AS MATERIALIZED (SELECT set_config('plan_cache_mode', 'force_custom_plan', true))`;

const ADD_AT_PLACEMENT = `${CUSTOM_PLANS}
  SELECT graphile_worker.add_job($1, json_build_object('orderId', $2::int), max_attempts := 25) FROM custom_plans`;

const ADD_REPOLL = `${CUSTOM_PLANS}
  SELECT graphile_worker.add_job($1, json_build_object('orderId', $2::int), job_key := $3, run_at := $4::timestamptz, max_attempts := 25) FROM custom_plans`;

export async function enqueueFulfilment(
  client: Pick<pg.PoolClient, "query">,
  orderId: number,
  runAt?: Date,
): Promise<void> {
  if (runAt === undefined) {
    await client.query({ name: "enqueue-fulfilment", text: ADD_AT_PLACEMENT, values: [FULFIL_ORDER_TASK, orderId] });
    return;
  }
  await client.query(ADD_REPOLL, [FULFIL_ORDER_TASK, orderId, `order:${orderId}`, runAt]);
}
