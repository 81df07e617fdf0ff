// Fulfilment jobs live in graphile-worker's queue, added with SQL inside the caller's transaction,
// so an order and its job commit together or not at all.
//
// Placement adds its job as a CTE of its own statement (placementJobCte), through add_job's
// `unsafe_dedupe` path with a key no other job can hold: `place:<order id>`, for an order created
// in the same statement. That path is one INSERT ... ON CONFLICT (key) on graphile's unique key
// index, with nothing to deduplicate. The default path (add_jobs) first clears the key from running
// jobs with an UPDATE whose cached generic plan, made while the queue was short, seq-scans the
// whole queue on every call, key or no key: 5-7 ms per add_job with 20,000 jobs queued. Until
// 2026-11-25 placement avoided that by planning add_job's statements afresh on every call
// (plan_cache_mode force_custom_plan), which cost about 0.2 ms of PostgreSQL CPU per order, a fifth
// of a placement's (bench/RESULTS.md, "2026-11-25, 11:20"). Should the key be taken all the same
// (a job left behind by a restored or reset database), add_job returns that job with its revision
// bumped instead of a new one (revision 0): the placement then fails whole (FULFILMENT_JOB_ADDED).
//
// A re-poll (runAt given: the worker asks the supplier again later) is keyed `order:<id>` and goes
// the default way: if a crashed attempt of the same order is retried while a re-poll waits, its own
// re-poll replaces the waiting one instead of starting a second poll chain. Its statements are
// planned afresh (force_custom_plan, transaction-local), so that UPDATE uses the key's index
// whatever the queue's length. These are the worker's rare path, not the API's. fulfilOrder is
// safe to run twice either way (guarded transitions, settle-order.ts).
import type pg from "pg";

export const FULFIL_ORDER_TASK = "fulfil_order";

/**
 * The placement's job as a CTE, fulfilment_job: one add_job per row of `source` (a CTE) that meets
 * `when`, for the order id `orderId` (expressions over the source's columns). A SELECT CTE runs
 * only if the statement reads it: the statement must read FULFILMENT_JOB_ADDED whenever `when` holds.
 */
export function placementJobCte(p: { source: string; orderId: string; when: string }): string {
  return `fulfilment_job AS (
    SELECT graphile_worker.add_job('${FULFIL_ORDER_TASK}', json_build_object('orderId', ${p.orderId}), max_attempts := 25,
                                   job_key := 'place:' || ${p.orderId}, job_key_mode := 'unsafe_dedupe') AS job
      FROM ${p.source} WHERE ${p.when}
  )`;
}

/**
 * How many new jobs placementJobCte added (a job whose key was already taken does not count).
 * The statement compares it with its orders and fails itself (raise_api_error) when one is missing.
 */
export const FULFILMENT_JOB_ADDED = `(SELECT count(*) FROM fulfilment_job WHERE (job).revision = 0)::int`;

// The MATERIALIZED CTE runs set_config before add_job is called.
const CUSTOM_PLANS = `custom_plans AS MATERIALIZED (SELECT set_config('plan_cache_mode', 'force_custom_plan', true))`;

const ADD_REPOLL = `WITH ${CUSTOM_PLANS}
  SELECT graphile_worker.add_job($1, json_build_object('orderId', $2::int), job_key := $3, run_at := $4::timestamptz, max_attempts := 25) FROM custom_plans`;

/** Queues the order's fulfilment again at `runAt` (the worker's re-poll). */
export async function enqueueFulfilment(
  client: Pick<pg.PoolClient, "query">,
  orderId: number,
  runAt: Date,
): Promise<void> {
  await client.query(ADD_REPOLL, [FULFIL_ORDER_TASK, orderId, `order:${orderId}`, runAt]);
}
