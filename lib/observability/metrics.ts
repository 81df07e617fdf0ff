// The service's Prometheus metrics (prom-client), every one named here with its labels. Each process
// counts what happens in it: the web process its HTTP requests, placements and rate-limit refusals,
// a worker its settlements, supplier attempts and webhook attempts (an admin's settlement counts in
// the web process); Prometheus adds the processes up. What is a state of the whole service rather
// than an event of one process (the queue, the webhook backlog, circuits, the wallets' total) is read
// from the database when the web process is scraped (read-service-state.ts), so it is counted once
// per database, not once per process.
//
// Labels are bounded sets: a route pattern (never a path), a method, a status, a kind, a game line's
// slug, a supplier account's name, an outcome. Never an account, a key, an order or a player.
import client from "prom-client";
import type { OrderRecord } from "../orders/order-record";

const registry = client.register;

// Next's bundle loads its own copy of this module in the web process, registering on the same
// registry (prom-client is loaded from node_modules by both): the first copy's metric is the one.
function counter<L extends string>(config: client.CounterConfiguration<L>): client.Counter<L> {
  return (registry.getSingleMetric(config.name) as client.Counter<L> | undefined) ?? new client.Counter(config);
}

function gauge<L extends string>(config: client.GaugeConfiguration<L>): client.Gauge<L> {
  return (registry.getSingleMetric(config.name) as client.Gauge<L> | undefined) ?? new client.Gauge(config);
}

function histogram<L extends string>(config: client.HistogramConfiguration<L>): client.Histogram<L> {
  return (registry.getSingleMetric(config.name) as client.Histogram<L> | undefined) ?? new client.Histogram(config);
}

const httpRequests = counter({
  name: "topup_http_requests_total",
  help: "HTTP requests answered, by route pattern, method and status.",
  labelNames: ["route", "method", "status"],
});

const httpDuration = histogram({
  name: "topup_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer's last byte, by route pattern and method.",
  labelNames: ["route", "method"],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

const rateLimitRefusals = counter({
  name: "topup_rate_limit_refusals_total",
  help: "Requests refused with 429 RATE_LIMIT: over a key's limits (key), or a network's failed authentications (network).",
  labelNames: ["scope"],
});

const ordersPlaced = counter({
  name: "topup_orders_placed_total",
  help: "New orders (replays excluded), refused ones included, by line kind, game line and mode (live, test).",
  labelNames: ["kind", "line", "mode"],
});

const ordersCompleted = counter({
  name: "topup_orders_completed_total",
  help: "Orders completed, by line kind, game line and mode.",
  labelNames: ["kind", "line", "mode"],
});

const ordersCancelled = counter({
  name: "topup_orders_cancelled_total",
  help: "Orders cancelled: at placement for want of balance, nothing charged (stage=placement), or after it and refunded (stage=fulfilment).",
  labelNames: ["kind", "line", "mode", "stage"],
});

const fulfilmentSeconds = histogram({
  name: "topup_order_fulfilment_seconds",
  help: "Placement to completion of completed orders, by line kind and mode.",
  labelNames: ["kind", "mode"],
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600, 1800],
});

const supplierAttempts = counter({
  name: "topup_supplier_attempts_total",
  help: "Calls to a supplier about a live top-up, by supplier account and outcome (success, pending, unknown, not_found, failed_customer, failed_supplier).",
  labelNames: ["supplier", "outcome"],
});

const supplierDuration = histogram({
  name: "topup_supplier_attempt_duration_seconds",
  help: "Time a supplier took to answer a call about a live top-up, by supplier account.",
  labelNames: ["supplier"],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
});

const webhookAttempts = counter({
  name: "topup_webhook_attempts_total",
  help: "Webhook delivery attempts, by outcome: delivered (2xx), retrying (failed, tried again later), failed (given up).",
  labelNames: ["outcome"],
});

const webhookLag = histogram({
  name: "topup_webhook_delivery_lag_seconds",
  help: "Time from an event to its delivery (the attempt answered 2xx), retries included.",
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400],
});

/**
 * The service-wide gauges read from the database when the web process is scraped: made on that
 * process's first scrape, so no other process shows them (at a meaningless 0).
 */
export const serviceGauges = () => ({
  queueJobs: gauge({
    name: "topup_queue_jobs",
    help: "Jobs in the queue, by task and state: ready (due, waiting for a worker), scheduled (due later), running, failed (attempts used up).",
    labelNames: ["task", "state"],
  }),
  queueOldestAge: gauge({
    name: "topup_queue_oldest_job_age_seconds",
    help: "How long the oldest ready job has been due without a worker taking it (0: none waits), by task.",
    labelNames: ["task"],
  }),
  webhookDue: gauge({
    name: "topup_webhook_deliveries_due",
    help: "Webhook deliveries due now that no worker has claimed.",
  }),
  webhookOldestDue: gauge({
    name: "topup_webhook_oldest_due_seconds",
    help: "How long the oldest due, unclaimed webhook delivery has waited (0: none).",
  }),
  webhookPending: gauge({
    name: "topup_webhook_deliveries_pending",
    help: "Webhook deliveries not yet delivered nor given up (due now or retrying later).",
  }),
  circuitOpen: gauge({
    name: "topup_supplier_circuit_open",
    help: "1 while a supplier account's circuit is open (routing skips it), else 0.",
    labelNames: ["supplier"],
  }),
  supplierPaused: gauge({
    name: "topup_supplier_paused",
    help: "1 while an owner has paused a supplier account, else 0.",
    labelNames: ["supplier"],
  }),
  walletLiability: gauge({
    name: "topup_wallet_liability_usd",
    help: "What the service owes its account holders: the sum of live wallet balances (the dashboard overview's figure).",
  }),
  fundedAccounts: gauge({
    name: "topup_wallet_funded_accounts",
    help: "Live accounts holding money.",
  }),
  openOrders: gauge({
    name: "topup_orders_open",
    help: "Live orders not finished: in_flight (the worker's) and awaiting_admin (flagged), as the dashboard overview counts them.",
    labelNames: ["state"],
  }),
});

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** One answered HTTP request; `route` is the route's pattern (bounded), never the path. */
export function recordHttpRequest(route: string, method: string, status: number, seconds: number): void {
  // A client chooses its method: any other word is counted as one.
  const verb = METHODS.has(method) ? method : "other";
  httpRequests.inc({ route, method: verb, status: String(status) });
  httpDuration.observe({ route, method: verb }, seconds);
}

export function recordRateLimitRefusal(scope: "key" | "network"): void {
  rateLimitRefusals.inc({ scope });
}

type OrderLabels = Pick<OrderRecord, "lineKind" | "lineSlug" | "livemode">;

const orderLabels = (order: OrderLabels) => ({
  kind: order.lineKind,
  line: order.lineSlug,
  mode: order.livemode ? "live" : "test",
});

/** A new order, as place_order answered it: processing, or cancelled for want of balance. */
export function recordOrderPlaced(order: OrderLabels & Pick<OrderRecord, "status">): void {
  const labels = orderLabels(order);
  ordersPlaced.inc(labels);
  if (order.status === "cancelled") ordersCancelled.inc({ ...labels, stage: "placement" });
}

/** An order settled (after its transaction committed). */
export function recordOrderSettled(
  to: "completed" | "cancelled",
  order: OrderLabels & Pick<OrderRecord, "createdAt" | "finishedAt">,
): void {
  const labels = orderLabels(order);
  if (to === "cancelled") return void ordersCancelled.inc({ ...labels, stage: "fulfilment" });
  ordersCompleted.inc(labels);
  const finished = order.finishedAt ?? new Date();
  fulfilmentSeconds.observe(
    { kind: labels.kind, mode: labels.mode },
    Math.max(0, (finished.getTime() - order.createdAt.getTime()) / 1000),
  );
}

/** One supplier call about a live top-up (lib/fulfilment/sql/fulfil-order.ts builds it). */
export function countSupplierCall(attempt: {
  supplier: string;
  outcome: string;
  failure?: "customer" | "supplier";
  latencyMs: number;
}): void {
  const outcome = attempt.outcome === "failed" ? `failed_${attempt.failure ?? "supplier"}` : attempt.outcome;
  supplierAttempts.inc({ supplier: attempt.supplier, outcome });
  supplierDuration.observe({ supplier: attempt.supplier }, attempt.latencyMs / 1000);
}

/** One webhook delivery attempt's result (skipped attempts are not attempts). */
export function recordWebhookAttempt(result: { outcome: string }, eventCreatedAt: Date): void {
  if (result.outcome !== "delivered" && result.outcome !== "retrying" && result.outcome !== "failed") return;
  webhookAttempts.inc({ outcome: result.outcome });
  if (result.outcome === "delivered") webhookLag.observe(Math.max(0, (Date.now() - eventCreatedAt.getTime()) / 1000));
}

const MISNAMED_DEFAULTS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

/** The Prometheus text of this process's registry, with Node's process metrics. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  // Once per process, whichever copy of this module asks first.
  if (!registry.getSingleMetric("process_cpu_seconds_total")) {
    client.collectDefaultMetrics({ register: registry });
    // Gauges that prom-client names like counters, which Prometheus' conventions (promtool) refuse.
    for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  }
  return { contentType: registry.contentType, body: await registry.metrics() };
}
