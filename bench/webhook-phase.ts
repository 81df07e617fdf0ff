// What one webhook endpoint per account costs. Rounds of the same size in
// three modes, mirrored (none, concurrent, deferred, deferred, concurrent, none, ...) so the
// tables' steady growth weighs on every mode alike. Each round:
//
//   1. POST /orders through the service, no worker running: placement throughput;
//   2. a worker drains those orders: completions/s (first to last finished_at);
//      - "off": no endpoints (the outbox row is still written: every event is kept for GET /events);
//      - "on": one endpoint per account, and the same worker process's webhook dispatcher delivers each
//        settlement's order.completed to the local receiver while it fulfils;
//      - "deferred": the same endpoints, but the draining worker delivers nothing
//        (WEBHOOK_CONCURRENCY=0: no webhook dispatcher), so completions/s carry the outbox write in
//        the settling transaction and nothing else; a normal worker then delivers the queue alone;
//   3. with endpoints, until the outbox has drained: deliveries/s, and every event recorded in the
//      round must have arrived (by webhook-id), a sample verified with its endpoint's secret;
//   4. the ledger check.
//
// Endpoints are added and removed through the bot's own functions. The receiver is on 127.0.0.1,
// which only the development switch allows (WEBHOOKS_ALLOW_PRIVATE=1, refused with
// NODE_ENV=production), so every round's worker, in every mode, runs with NODE_ENV=development and
// the switch; nothing else in lib/ reads NODE_ENV (secrets come from the environment either way),
// so it runs the same code as production.
import type pg from "pg";
import { addWebhookEndpoint } from "@/lib/webhooks/add-webhook-endpoint";
import { removeWebhookEndpoint } from "@/lib/webhooks/remove-webhook-endpoint";
import { systemResolver } from "@/lib/webhooks/check-destination";
import { checkLedger } from "@/lib/wallet/sql/check-ledger";
import { forEachLimited } from "./database";
import { runLoad, type RequestFactory } from "./load";
import { BenchWebhookReceiver, type DeliveryTally } from "./webhook-receiver";
import { measureDrain, startBenchWorker, type DrainFigures } from "./worker-phase";

export type WebhookMode = "off" | "on" | "deferred";

export const MODE_LABEL: Record<WebhookMode, string> = {
  off: "none",
  on: "one per account, delivering while fulfilling",
  deferred: "one per account, delivered after the drain",
};

export interface WebhookRound {
  mode: WebhookMode;
  /** 2xx placements, and orders per second from the first to the last stored order's created_at
   *  (autocannon's own duration of a fixed-amount run ends on a whole-second tick, too coarse here). */
  placed: number;
  placePerSecond: number;
  placeFailures: number;
  drain: DrainFigures;
  /** Webhook events the round's settlements recorded (with or without endpoints: the outbox row is always written). */
  events: number;
  /** With endpoints: the round's deliveries by final status, what the receiver got, and the rate. */
  deliveries?: {
    byStatus: Record<string, number>;
    /** Deliveries that took more than one attempt. */
    retried: number;
    tally: DeliveryTally;
    /** Events delivered / (last arrival − ready of the worker that delivered them). */
    perSecond: number;
    /** That worker's ready until the last delivery arrived. */
    seconds: number;
    /** How long after the last order finished the last delivery arrived. */
    tailSeconds: number;
    /** Settlement (event recorded) to delivery recorded, ms. */
    p50Ms: number;
    p99Ms: number;
  };
  ledgerProblems: string[];
  loadAverage: number;
  /** Error/warning lines of the round's workers (e.g. a task failed and was retried): the figures may be off. */
  workerProblemLines: number;
}

export interface WebhookFigures {
  ordersPerRound: number;
  connections: number;
  webhookConcurrency: string;
  rounds: WebhookRound[];
}

const VERIFY_SAMPLE = 200;

/** One round of each mode per cycle, every other cycle mirrored: off on deferred, deferred on off, ... */
export function roundModes(cycles: number): WebhookMode[] {
  const cycle: WebhookMode[] = ["off", "on", "deferred"];
  return Array.from({ length: cycles }, (_, i) => (i % 2 === 0 ? cycle : [...cycle].reverse())).flat();
}

/** Waits until no delivery of an event after `afterEventId` is pending (or the timeout). */
export async function waitUntilDelivered(pool: pg.Pool, afterEventId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ pending: number }>(
      `SELECT count(*)::int AS pending FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
        WHERE ev.id > $1 AND d.status = 'pending'`,
      [afterEventId],
    );
    if (rows[0]!.pending === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A worker's environment for delivering to the bench's receiver on 127.0.0.1, which only the
 * development switch allows (WEBHOOKS_ALLOW_PRIVATE=1, refused with NODE_ENV=production).
 */
export function deliveringWorkerEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return { ...env, NODE_ENV: "development", WEBHOOKS_ALLOW_PRIVATE: "1" };
}

/** One endpoint per account pointing at the receiver, through the bot's own function; endpoint ids by account. */
export async function addBenchEndpoints(
  accountIds: number[],
  receiver: BenchWebhookReceiver,
  log: (line: string) => void,
): Promise<Map<number, number>> {
  const endpointIds = new Map<number, number>();
  await forEachLimited(accountIds, 4, async (accountId) => {
    const added = await addWebhookEndpoint({
      accountId,
      url: receiver.urlFor(accountId),
      actor: "bench",
      policy: { allowPrivate: true, resolve: systemResolver },
    });
    if (added.status !== "added")
      throw new Error(`bench endpoint not added for account ${accountId}: ${JSON.stringify(added)}`);
    endpointIds.set(accountId, added.endpointId);
    receiver.setSecret(accountId, added.secret);
  });
  log(
    `webhooks: one endpoint for each of ${endpointIds.size} accounts -> ${receiver.urlFor(0).replace(/\/0$/, "/<account>")}`,
  );
  return endpointIds;
}

/** Removes what addBenchEndpoints added (and empties the map). */
export async function removeBenchEndpoints(endpointIds: Map<number, number>, log: (line: string) => void) {
  await forEachLimited([...endpointIds], 4, async ([accountId, endpointId]) => {
    await removeWebhookEndpoint({ accountId, endpointId, actor: "bench" });
  });
  endpointIds.clear();
  log("webhooks: endpoints removed");
}

export async function runWebhookPhase(options: {
  pool: pg.Pool;
  servicePort: number;
  factory: RequestFactory;
  keysFor: (ratePerSecond: number, seconds: number) => number;
  accountIds: number[];
  ordersPerRound: number;
  cycles: number;
  connections: number;
  database: string;
  workerEnv: Record<string, string | undefined>;
  loadAverage: () => number;
  /** BENCH_CPU_PROF=1: each round's worker writes a CPU profile here (worker-<round>-<mode>/, one file per thread: the main thread's is the larger). */
  profileDir?: string;
  log: (line: string) => void;
}): Promise<WebhookFigures> {
  const { pool, log } = options;
  const workerEnv = deliveringWorkerEnv(options.workerEnv);
  const receiver = await BenchWebhookReceiver.start();
  let endpointIds = new Map<number, number>();
  const rounds: WebhookRound[] = [];

  const setEndpoints = async (mode: WebhookMode) => {
    if (mode !== "off" && endpointIds.size === 0)
      endpointIds = await addBenchEndpoints(options.accountIds, receiver, log);
    else if (mode === "off" && endpointIds.size > 0) await removeBenchEndpoints(endpointIds, log);
  };

  try {
    // Orders still open (BENCH_WORKER=0 leaves the backlog unfulfilled) would be drained by the first
    // round's worker and counted in its figures: settled first, unmeasured.
    const open = (
      await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE status IN ('pending', 'processing')`)
    ).rows[0]!.n;
    if (open > 0) {
      log(`webhooks: settling ${open} open orders first`);
      const worker = await startBenchWorker(workerEnv, log);
      try {
        await measureDrain(pool, "%", worker, options.database);
      } finally {
        await worker.stop();
      }
    }

    for (const [index, mode] of roundModes(options.cycles).entries()) {
      await setEndpoints(mode);
      await pool.query("VACUUM (ANALYZE)");
      const prefix = `wh${index}${mode.slice(0, 3)}`;
      const lastEventId = (
        await pool.query<{ id: number }>(`SELECT COALESCE(max(id), 0)::int AS id FROM webhook_events`)
      ).rows[0]!.id;
      const loadAverage = options.loadAverage();

      const place = await runLoad({
        port: options.servicePort,
        connections: options.connections,
        amount: options.ordersPerRound,
        endpoint: "place",
        trxPrefix: prefix,
        factory: options.factory,
        cursor: options.factory.cursor("limited", options.keysFor(options.ordersPerRound, 1)),
      });

      const placedSpan = (
        await pool.query<{ n: number; seconds: number }>(
          `SELECT count(*)::int AS n, extract(epoch FROM max(created_at) - min(created_at))::float8 AS seconds FROM orders WHERE trxid LIKE $1`,
          [`${prefix}-%`],
        )
      ).rows[0]!;

      const profile = (name: string) =>
        options.profileDir ? ["--cpu-prof", "--cpu-prof-dir", `${options.profileDir}/worker-${index + 1}-${name}`] : [];
      const deferred = mode === "deferred";
      const worker = await startBenchWorker(
        deferred ? { ...workerEnv, WEBHOOK_CONCURRENCY: "0" } : workerEnv,
        log,
        profile(mode),
      );
      let drain: DrainFigures;
      let deliveringSince = 0;
      let workerProblemLines = 0;
      try {
        drain = await measureDrain(pool, `${prefix}-%`, worker, options.database);
        deliveringSince = drain.startedAt;
        if (mode === "on") await waitUntilDelivered(pool, lastEventId, 180_000);
      } finally {
        await worker.stop();
        workerProblemLines += worker.problemLines;
      }
      if (deferred) {
        const deliverer = await startBenchWorker(workerEnv, log, profile("deliver"));
        deliveringSince = Date.now();
        try {
          await waitUntilDelivered(pool, lastEventId, 180_000);
        } finally {
          await deliverer.stop();
          workerProblemLines += deliverer.problemLines;
        }
      }

      const events = (
        await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE id > $1`, [lastEventId])
      ).rows[0]!.n;
      const tally = receiver.take(VERIFY_SAMPLE);
      let deliveries: WebhookRound["deliveries"];
      if (mode !== "off") {
        const statuses = await pool.query<{ status: string; n: number; retried: number }>(
          `SELECT d.status, count(*)::int AS n, count(*) FILTER (WHERE d.attempts > 1)::int AS retried
             FROM webhook_deliveries d WHERE d.event_id > $1 GROUP BY d.status`,
          [lastEventId],
        );
        const latency = (
          await pool.query<{ p50: number; p99: number; last_finished: Date }>(
            `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99,
                    (SELECT max(finished_at) FROM orders WHERE trxid LIKE $2) AS last_finished
               FROM (SELECT extract(epoch FROM d.delivered_at - ev.created_at) * 1000 AS ms
                       FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
                      WHERE ev.id > $1 AND d.status = 'delivered') t`,
            [lastEventId, `${prefix}-%`],
          )
        ).rows[0]!;
        const seconds = tally.lastAt ? (tally.lastAt - deliveringSince) / 1000 : NaN;
        deliveries = {
          byStatus: Object.fromEntries(statuses.rows.map((r) => [r.status, r.n])),
          retried: statuses.rows.reduce((total, r) => total + r.retried, 0),
          tally,
          perSecond: tally.events / seconds,
          seconds,
          tailSeconds:
            tally.lastAt && latency.last_finished ? (tally.lastAt - latency.last_finished.getTime()) / 1000 : NaN,
          p50Ms: latency.p50,
          p99Ms: latency.p99,
        };
      } else if (tally.requests > 0) {
        throw new Error(`the receiver got ${tally.requests} requests in a round without endpoints`);
      }
      const ledgerProblems = await checkLedger();
      const round: WebhookRound = {
        mode,
        placed: place.ok,
        placePerSecond: placedSpan.seconds > 0 ? placedSpan.n / placedSpan.seconds : NaN,
        placeFailures: place.non2xx + place.errors,
        drain,
        events,
        deliveries,
        ledgerProblems,
        loadAverage,
        workerProblemLines,
      };
      rounds.push(round);
      log(
        `webhooks round ${index + 1} (endpoints: ${MODE_LABEL[mode]}): placed ${round.placed} at ` +
          `${round.placePerSecond.toFixed(0)}/s, completed ${drain.drained} at ${drain.drainPerSecond.toFixed(0)}/s, ${events} events` +
          (deliveries
            ? `, ${deliveries.tally.events} delivered at ${deliveries.perSecond.toFixed(0)}/s (${deliveries.tally.verified}/${deliveries.tally.sampled} sampled signatures verify)`
            : "") +
          `; ledger ${ledgerProblems.length === 0 ? "ok" : `${ledgerProblems.length} problems`}` +
          (workerProblemLines ? `; the worker printed ${workerProblemLines} error/warning lines` : ""),
      );
    }
    // Later phases subscribe their own receiver: none of these endpoints may stay behind.
    await setEndpoints("off");
  } finally {
    await receiver.close();
  }
  return {
    ordersPerRound: options.ordersPerRound,
    connections: options.connections,
    webhookConcurrency: workerEnv.WEBHOOK_CONCURRENCY ?? process.env.WEBHOOK_CONCURRENCY ?? "10 (default)",
    rounds,
  };
}
