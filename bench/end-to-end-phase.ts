// The end-to-end rate: orders placed through the service at a fixed rate while one worker
// (scripts/worker.ts) fulfils them and delivers each order.completed webhook to a local receiver,
// everything on this machine. The rate steps up until a step no longer keeps up; the highest step
// that held is the phase's figure.
//
// A step holds when its placements reach the asked rate without failures, every order completes,
// every completion's webhook arrives, placement to completion (orders.created_at -> finished_at)
// has p99 under 1 s and completion to webhook (finished_at -> the receiver's arrival of the
// order.completed event; one clock, as PostgreSQL and the receiver share the machine) p99 under
// 2 s. CPU per order covers a step from its first placement until its last webhook arrived.
import os from "node:os";
import type pg from "pg";
import { diffCpu, processMs, snapshotCpu } from "./cpu-usage";
import { percentile, type RequestFactory } from "./load";
import { addBenchEndpoints, deliveringWorkerEnv, removeBenchEndpoints, waitUntilDelivered } from "./webhook-phase";
import { BenchWebhookReceiver } from "./webhook-receiver";
import { placeSteadily, startBenchWorker, type SteadyFigures } from "./worker-phase";

const PLACEMENT_P99_LIMIT_MS = 1000;
const WEBHOOK_P99_LIMIT_MS = 2000;
/** Placements may fall this far short of the asked rate (autocannon's pacing at the edges of the run). */
const RATE_SHORTFALL = 0.05;
/** How long after its orders finished a step's webhooks may still arrive before they count as missing. */
const DELIVERY_WAIT_MS = 30_000;
const VERIFY_SAMPLE = 50;
const WARMUP_SECONDS = 5;

/** µs of CPU per order placed in the step, by process. */
interface CpuPerOrder {
  api: number;
  worker: number;
  postgres: number;
  redis: number;
  /** This process: the load generator and the webhook receiver. */
  bench: number;
  /** Everything else on the machine (other people's work, the kernel). */
  other: number;
}

interface EndToEndStep {
  askedRate: number;
  placement: SteadyFigures;
  /** Completion (finished_at) to the receiver's first arrival of the order.completed event, ms. */
  webhookP50Ms: number;
  webhookP99Ms: number;
  webhookMaxMs: number;
  /** Completed orders whose order.completed event had not arrived when the step ended. */
  webhooksMissing: number;
  signatures: { sampled: number; verified: number };
  cpu: CpuPerOrder;
  loadAverage: number;
  /** Why the step did not hold; empty when it held. */
  misses: string[];
}

export interface EndToEndFigures {
  holdSeconds: number;
  stepPercent: number;
  steps: EndToEndStep[];
  workerPeakRssKiB: number;
  workerProblemLines: number;
}

const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

async function lastEventId(pool: pg.Pool): Promise<number> {
  return (await pool.query<{ id: number }>(`SELECT COALESCE(max(id), 0)::int AS id FROM webhook_events`)).rows[0]!.id;
}

function stepMisses(step: Omit<EndToEndStep, "misses">): string[] {
  const p = step.placement;
  const misses: string[] = [];
  if (p.rate < step.askedRate * (1 - RATE_SHORTFALL)) misses.push(`placed ${fmt(p.rate)}/s`);
  if (p.apiFailures > 0) misses.push(`${p.apiFailures} placements failed`);
  if (p.notCompleted > 0) misses.push(`${p.notCompleted} orders not completed`);
  if (!(p.p99Ms < PLACEMENT_P99_LIMIT_MS)) misses.push(`placement to completion p99 ${fmt(p.p99Ms)} ms`);
  if (step.webhooksMissing > 0) misses.push(`${step.webhooksMissing} webhooks missing`);
  if (!(step.webhookP99Ms < WEBHOOK_P99_LIMIT_MS))
    misses.push(`completion to webhook p99 ${fmt(step.webhookP99Ms)} ms`);
  if (step.signatures.verified < step.signatures.sampled) misses.push("signatures failed to verify");
  return misses;
}

export async function runEndToEndPhase(options: {
  pool: pg.Pool;
  servicePort: number;
  servicePid: number;
  factory: RequestFactory;
  keysFor: (ratePerSecond: number, seconds: number) => number;
  accountIds: number[];
  database: string;
  workerEnv: Record<string, string | undefined>;
  startRate: number;
  stepPercent: number;
  holdSeconds: number;
  maxSteps: number;
  /** BENCH_CPU_PROF=1: the worker writes a CPU profile into <profileDir>/end-to-end-worker. */
  profileDir?: string;
  log: (line: string) => void;
}): Promise<EndToEndFigures> {
  const { pool, log } = options;
  const workerEnv = deliveringWorkerEnv(options.workerEnv);
  // Jobs left by earlier phases (the backlog, the endpoint series' placements) would be fulfilled in
  // the first steps and counted in them: dropped, their orders left open as after the endpoint series.
  await pool.query("TRUNCATE graphile_worker._private_jobs");

  const receiver = await BenchWebhookReceiver.start();
  const endpointIds = await addBenchEndpoints(options.accountIds, receiver, log);
  const worker = await startBenchWorker(
    workerEnv,
    log,
    options.profileDir ? ["--cpu-prof", "--cpu-prof-dir", `${options.profileDir}/end-to-end-worker`] : [],
  );
  const steps: EndToEndStep[] = [];
  try {
    // Unmeasured: the fresh worker's first orders (JIT, pools, prepared statements) would land in the first step.
    const beforeWarmup = await lastEventId(pool);
    await placeSteadily(options, options.startRate, WARMUP_SECONDS, "e2e0");
    await waitUntilDelivered(pool, beforeWarmup, DELIVERY_WAIT_MS);
    receiver.take(0);
    for (let i = 0; i < options.maxSteps; i++) {
      const askedRate = Math.round(options.startRate * (1 + options.stepPercent / 100) ** i);
      const prefix = `e2e${i + 1}`;
      const beforeStep = await lastEventId(pool);
      const loadAverage = os.loadavg()[0]!;
      const before = snapshotCpu();
      const placement = await placeSteadily(options, askedRate, options.holdSeconds, prefix);
      await waitUntilDelivered(pool, beforeStep, DELIVERY_WAIT_MS);
      const after = snapshotCpu();

      const tally = receiver.take(VERIFY_SAMPLE);
      const completed = await pool.query<{ trxid: string; finished_ms: number }>(
        `SELECT trxid, (extract(epoch FROM finished_at) * 1000)::float8 AS finished_ms
           FROM orders WHERE trxid LIKE $1 AND status = 'completed'`,
        [`${prefix}-%`],
      );
      const webhookMs: number[] = [];
      for (const { trxid, finished_ms } of completed.rows) {
        const arrived = tally.completedArrivals.get(trxid);
        if (arrived !== undefined) webhookMs.push(arrived - finished_ms);
      }
      webhookMs.sort((a, b) => a - b);

      const cpu = diffCpu(before, after, options.servicePid, options.database);
      const workerMs = processMs(before, after, worker.pid);
      const perOrder = (ms: number) => (ms * 1000) / Math.max(1, placement.orders);
      const measured = {
        askedRate,
        placement,
        webhookP50Ms: percentile(webhookMs, 50),
        webhookP99Ms: percentile(webhookMs, 99),
        webhookMaxMs: webhookMs.at(-1) ?? NaN,
        webhooksMissing: completed.rows.length - webhookMs.length,
        signatures: { sampled: tally.sampled, verified: tally.verified },
        cpu: {
          api: perOrder(cpu.serverMs),
          worker: perOrder(workerMs),
          postgres: perOrder(cpu.postgresMs),
          redis: perOrder(cpu.redisMs),
          bench: perOrder(cpu.loadGeneratorMs),
          // diffCpu counts the worker among "other": it is shown on its own.
          other: perOrder(Math.max(0, cpu.otherMs - workerMs)),
        },
        loadAverage,
      };
      const step = { ...measured, misses: stepMisses(measured) };
      steps.push(step);
      log(
        `end to end ${askedRate}/s: placed ${fmt(placement.rate)}/s, placement to completion p99 ${fmt(placement.p99Ms)} ms, ` +
          `completion to webhook p99 ${fmt(step.webhookP99Ms)} ms; CPU µs/order api ${fmt(step.cpu.api)}, worker ` +
          `${fmt(step.cpu.worker)}, postgres ${fmt(step.cpu.postgres)}: ${step.misses.length ? `missed (${step.misses.join("; ")})` : "held"}`,
      );
      if (step.misses.length) break;
    }
  } finally {
    await worker.stop();
    await removeBenchEndpoints(endpointIds, log);
    await receiver.close();
  }
  return {
    holdSeconds: options.holdSeconds,
    stepPercent: options.stepPercent,
    steps,
    workerPeakRssKiB: worker.peakRssKiB,
    workerProblemLines: worker.problemLines,
  };
}

/** The phase's section of the report (empty when it did not run). */
export function renderEndToEnd(result: EndToEndFigures | undefined): string {
  if (!result) return "";
  const held = result.steps.filter((s) => s.misses.length === 0);
  const best = held.at(-1);
  const failed = result.steps.find((s) => s.misses.length > 0);
  const cpuCells = (c: CpuPerOrder) => [c.api, c.worker, c.postgres, c.redis, c.bench, c.other].map((v) => fmt(v));
  const lines = [
    "",
    "### End-to-end rate: placement, fulfilment and webhook delivery on one machine",
    "",
    `POST /orders through the service at fixed rates, ${result.stepPercent}% up per step, each held ${result.holdSeconds} s, ` +
      "while one worker (`scripts/worker.ts`, its webhook dispatcher on) fulfils the orders and delivers each order.completed " +
      "to a local receiver (one endpoint per account). A step holds when placements keep the rate without failures, every " +
      `order completes and its webhook arrives, placement → completion p99 < ${PLACEMENT_P99_LIMIT_MS} ms ` +
      `(created_at → finished_at) and completion → webhook p99 < ${WEBHOOK_P99_LIMIT_MS} ms (finished_at → the receiver's arrival). ` +
      "CPU per order: from a step's first placement until its last webhook arrived, divided by its orders.",
    "",
  ];
  if (best) {
    lines.push(
      `- Highest rate sustained for ${result.holdSeconds} s: **${fmt(best.placement.rate)} orders/s** (asked ${best.askedRate}/s): ` +
        `placement → completion **p99 ${fmt(best.placement.p99Ms)} ms** (p50 ${fmt(best.placement.p50Ms)}), ` +
        `completion → webhook **p99 ${fmt(best.webhookP99Ms)} ms** (p50 ${fmt(best.webhookP50Ms)}); CPU per order: ` +
        `API ${fmt(best.cpu.api)} µs, worker ${fmt(best.cpu.worker)} µs, PostgreSQL ${fmt(best.cpu.postgres)} µs, ` +
        `Redis ${fmt(best.cpu.redis)} µs, load generator and receiver ${fmt(best.cpu.bench)} µs, other ${fmt(best.cpu.other)} µs.`,
    );
  } else lines.push("- No step held.");
  if (failed) lines.push(`- The first step that did not hold, ${failed.askedRate}/s: ${failed.misses.join("; ")}.`);
  else lines.push(`- Every step held: the highest asked rate is a lower bound (raise BENCH_E2E_STEPS).`);
  lines.push(
    `- Worker peak RSS ${fmt(result.workerPeakRssKiB / 1024)} MB; ${result.workerProblemLines} error/warning lines from it.`,
    "",
    "| asked/s | placed/s | orders | API p99 ms | placed → completed p50 / p99 / max ms | completed → webhook p50 / p99 / max ms | " +
      "CPU µs/order: API | worker | postgres | redis | bench | other | load avg | held |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const s of result.steps) {
    const p = s.placement;
    lines.push(
      `| ${s.askedRate} | ${fmt(p.rate)} | ${p.orders} | ${fmt(p.apiP99Ms)} | ${fmt(p.p50Ms)} / ${fmt(p.p99Ms)} / ${fmt(p.maxMs)} | ` +
        `${fmt(s.webhookP50Ms)} / ${fmt(s.webhookP99Ms)} / ${fmt(s.webhookMaxMs)} | ${cpuCells(s.cpu).join(" | ")} | ` +
        `${fmt(s.loadAverage, 1)} | ${s.misses.length ? `no: ${s.misses.join("; ")}` : "yes"} |`,
    );
  }
  lines.push("");
  return lines.join("\n");
}
