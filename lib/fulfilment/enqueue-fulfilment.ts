// Fulfilment jobs live in graphile-worker's queue, added with SQL inside the caller's transaction,
// so an order and its job commit together or not at all.
//
// Why plan_cache_mode: add_job's plpgsql first clears the job's key from running jobs. Planned once
// per connection while the queue was short, that UPDATE's cached generic plan seq-scans the whole
// queue on every call, key or no key (a hash join that looks for one running job before it looks
// at the keys), so placement slowed down as the queue grew: 5-7 ms per add_job with 20,000 jobs
// queued against under 1 ms planned for the queue as it is (bench/RESULTS.md, sections 3 and 8).
// set_config(..., true) lasts to the end of the caller's transaction: the job is the placement's
// last write (its one writing statement, lib/orders/place-order.ts), and COMMIT follows.
//
// Placement adds its job without a job_key, as CTEs of its own statement (placementJobCtes). A key
// buys nothing there: the order was created in the same transaction, so no other job can exist for
// it yet.
//
// A re-poll (runAt given: the worker asks the supplier again later) keeps the key `order:<id>`:
// if a crashed attempt of the same order is retried while a re-poll waits, its own re-poll replaces
// the waiting one instead of starting a second poll chain. These are the worker's rare path, not
// the API's. fulfilOrder is safe to run twice either way (guarded transitions, settle-order.ts).
import type pg from "pg";

export const FULFIL_ORDER_TASK = "fulfil_order";

// The MATERIALIZED CTE runs set_config before add_job is called.
const CUSTOM_PLANS = `custom_plans AS MATERIALIZED (SELECT set_config('plan_cache_mode', 'force_custom_plan', true))`;

/**
 * The placement's job as CTEs: custom_plans, then fulfilment_job, one add_job per row of `source`
 * (a CTE) that meets `when`, for the order id `orderId` (expressions over the source's columns). A
 * SELECT CTE runs only if the statement reads it: the statement must select FULFILMENT_JOBS.
 */
export function placementJobCtes(p: { source: string; orderId: string; when: string }): string {
  return `${CUSTOM_PLANS}, fulfilment_job AS (
    SELECT graphile_worker.add_job('${FULFIL_ORDER_TASK}', json_build_object('orderId', ${p.orderId}), max_attempts := 25)
      FROM custom_plans, ${p.source} WHERE ${p.when}
  )`;
}

/** The number of jobs placementJobCtes added. */
export const FULFILMENT_JOBS = `(SELECT count(*) FROM fulfilment_job)::int`;

const ADD_REPOLL = `WITH ${CUSTOM_PLANS}
  SELECT graphile_worker.add_job($1, json_build_object('orderId', $2::int), job_key := $3, run_at := $4::timestamptz, max_attempts := 25) FROM custom_plans`;

/** Queues the order's fulfilment again at `runAt` (the worker's re-poll). */
export async function enqueueFulfilment(client: Pick<pg.PoolClient, "query">, orderId: number, runAt: Date): Promise<void> {
  await client.query(ADD_REPOLL, [FULFIL_ORDER_TASK, orderId, `order:${orderId}`, runAt]);
}
