// The service-wide gauges, read from the database when the web process is scraped: the job queue,
// the webhook backlog, the suppliers' circuits and pauses, what the wallets hold and the open orders.
// The last two are the dashboard overview's own reads, so the overview and the metrics show the same
// figures. Every web process answers the same values: aggregate them with max(), never sum().
import { getPool } from "../../db/pool";
import { sql } from "../../db/run-sql";
import { readWalletLiability } from "../../dashboard/read-wallet-liability";
import { countOpenOrders } from "../../dashboard/read-order-backlog";
import { FULFIL_ORDER_TASK } from "../../fulfilment/sql/enqueue-fulfilment";
import { serviceGauges } from "../metrics";

interface QueueRow {
  task: string;
  ready: number;
  scheduled: number;
  running: number;
  failed: number;
  oldest: number;
}

// graphile_worker.jobs is the library's public view of its jobs; it exists once a worker has run.
async function readQueue(): Promise<QueueRow[]> {
  const { rows } = await getPool().query<QueueRow>(
    sql`SELECT task_identifier AS task,
               count(*) FILTER (WHERE locked_at IS NULL AND attempts < max_attempts AND run_at <= now())::int AS ready,
               count(*) FILTER (WHERE locked_at IS NULL AND attempts < max_attempts AND run_at > now())::int AS scheduled,
               count(*) FILTER (WHERE locked_at IS NOT NULL)::int AS running,
               count(*) FILTER (WHERE locked_at IS NULL AND attempts >= max_attempts)::int AS failed,
               COALESCE(extract(epoch FROM now() - min(run_at) FILTER (
                 WHERE locked_at IS NULL AND attempts < max_attempts AND run_at <= now())), 0)::float8 AS oldest
          FROM graphile_worker.jobs
         GROUP BY task_identifier`,
  );
  return rows;
}

async function readWebhookBacklog(): Promise<{ due: number; oldestDue: number; pending: number }> {
  const { rows } = await getPool().query<{ due: number; oldestDue: number; pending: number }>(
    sql`SELECT count(*) FILTER (WHERE due)::int AS due,
               COALESCE(extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE due)), 0)::float8 AS "oldestDue",
               count(*)::int AS pending
          FROM (SELECT next_attempt_at,
                       next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until <= now()) AS due
                  FROM webhook_deliveries WHERE status = 'pending') d`,
  );
  return rows[0]!;
}

async function readSuppliers(): Promise<{ name: string; open: boolean; paused: boolean }[]> {
  const { rows } = await getPool().query<{ name: string; open: boolean; paused: boolean }>(
    sql`SELECT name, COALESCE(circuit_open_until > now(), false) AS open, paused_at IS NOT NULL AS paused FROM suppliers`,
  );
  return rows;
}

async function queueOrNothing(): Promise<QueueRow[]> {
  try {
    return await readQueue();
  } catch (error) {
    // No worker has created graphile's schema yet: an empty queue.
    if ((error as { code?: string }).code === "42P01") return [];
    throw error;
  }
}

/** Reads the service's state and sets the gauges to it. */
export async function readServiceState(): Promise<void> {
  const [queue, webhooks, suppliers, liability, open] = await Promise.all([
    queueOrNothing(),
    readWebhookBacklog(),
    readSuppliers(),
    readWalletLiability(),
    countOpenOrders(),
  ]);
  const g = serviceGauges();
  // Reset first: a task, a supplier no longer there must not keep its last value.
  for (const gauge of [g.queueJobs, g.queueOldestAge, g.circuitOpen, g.supplierPaused]) gauge.reset();
  const tasks = new Map(queue.map((row) => [row.task, row]));
  if (!tasks.has(FULFIL_ORDER_TASK))
    tasks.set(FULFIL_ORDER_TASK, { task: FULFIL_ORDER_TASK, ready: 0, scheduled: 0, running: 0, failed: 0, oldest: 0 });
  for (const row of tasks.values()) {
    for (const state of ["ready", "scheduled", "running", "failed"] as const)
      g.queueJobs.set({ task: row.task, state }, row[state]);
    g.queueOldestAge.set({ task: row.task }, row.oldest);
  }
  g.webhookDue.set(webhooks.due);
  g.webhookOldestDue.set(webhooks.oldestDue);
  g.webhookPending.set(webhooks.pending);
  for (const supplier of suppliers) {
    g.circuitOpen.set({ supplier: supplier.name }, supplier.open ? 1 : 0);
    g.supplierPaused.set({ supplier: supplier.name }, supplier.paused ? 1 : 0);
  }
  g.walletLiability.set(liability.totalCents / 100);
  g.fundedAccounts.set(liability.fundedAccounts);
  g.openOrders.set({ state: "in_flight" }, open.inFlight);
  g.openOrders.set({ state: "awaiting_admin" }, open.awaitingAdmin);
}
