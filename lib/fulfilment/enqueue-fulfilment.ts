// Fulfilment jobs live in graphile-worker's queue, added with SQL inside the caller's transaction,
// so an order and its job commit together or not at all.
//
// Placement adds its job without a job_key. A key buys nothing there: the order was created in the
// same transaction, so no other job can exist for it yet. And it costs: add_job with a key first
// clears that key from running jobs, an UPDATE that can run on a cached plan scanning the whole
// queue, so every placement would slow down as the queue grows (bench/RESULTS.md, finding 3).
//
// A re-poll (runAt given: the worker asks the supplier again later) keeps the key `order:<id>`:
// if a crashed attempt of the same order is retried while a re-poll waits, its own re-poll replaces
// the waiting one instead of starting a second poll chain. These are the worker's rare path, not
// the API's. fulfilOrder is safe to run twice either way (guarded transitions, settle-order.ts).
import type pg from "pg";

export const FULFIL_ORDER_TASK = "fulfil_order";

const ADD_AT_PLACEMENT = `SELECT graphile_worker.add_job($1, json_build_object('orderId', $2::int), max_attempts := 25)`;

const ADD_REPOLL = `SELECT graphile_worker.add_job($1, json_build_object('orderId', $2::int), job_key := $3, run_at := $4::timestamptz, max_attempts := 25)`;

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
