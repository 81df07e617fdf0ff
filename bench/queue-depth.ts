// Placement against the job queue's depth: POST /orders with the queue empty and with
// BENCH_QUEUE_DEPTH (default 20,000) jobs waiting. Each round empties the queue (TRUNCATE), runs a
// slice of each server, fills the queue in one add_jobs call and runs a slice of each server
// again: the queue grows under connections that placed orders while it was short, as when workers
// fall behind in production (a TRUNCATE between the two would make every connection plan afresh).
// The waiting jobs are fulfil_order jobs with a job_key (as re-polls are queued) and a run_at a
// day ahead, so nothing would run them even if a worker were up (none is, in this phase); the
// slices' own placements add their jobs on top. Besides req/s and latency, PostgreSQL's CPU per
// order, which a busy neighbour on a shared machine disturbs less.
//
// Why: graphile_worker.add_job with a job_key first clears that key from locked jobs, and that
// UPDATE can run on a cached generic plan that scans the whole queue, so placement slowed down as
// the queue grew. Target: within 10% at 20,000 jobs.
import os from "node:os";
import type pg from "pg";
import { diffCpu, snapshotCpu } from "./cpu-usage";
import { median, percentile, runLoad, type KeyCursor, type KeyRegion, type RequestFactory } from "./load";

export interface QueueDepthServer {
  label: string;
  port: number;
  pid: number;
  region: KeyRegion;
}

interface QueueDepthFigures {
  label: string;
  depth: number;
  sliceRps: number[];
  p50: number;
  p99: number;
  failed: number;
  /** PostgreSQL CPU (bench database backends and background processes) per answered order, µs. */
  postgresUsPerOrder: number;
}

export interface QueueDepthResult {
  depth: number;
  slices: number;
  sliceSeconds: number;
  figures: QueueDepthFigures[];
  loadAverages: number[];
}

/** BENCH_QUEUE_DEPTH=0 skips the phase; BENCH_QUEUE_SLICES rounds (default 6). */
function queueDepthSettings(): { depth: number; slices: number } {
  const depth = Number(process.env.BENCH_QUEUE_DEPTH ?? 20_000);
  const slices = Number(process.env.BENCH_QUEUE_SLICES ?? 6);
  if (!Number.isInteger(depth) || depth < 0)
    throw new Error(`BENCH_QUEUE_DEPTH must be a whole number, got ${process.env.BENCH_QUEUE_DEPTH}`);
  if (!Number.isInteger(slices) || slices <= 0)
    throw new Error(`BENCH_QUEUE_SLICES must be a positive integer, got ${process.env.BENCH_QUEUE_SLICES}`);
  return { depth, slices };
}

const FILL_QUEUE = `
  SELECT count(*)::int AS n FROM graphile_worker.add_jobs((
    SELECT array_agg(ROW('fulfil_order', json_build_object('orderId', -g), NULL, now() + interval '1 day', 25, 'queued:' || g, NULL, NULL)::graphile_worker.job_spec)
      FROM generate_series(1, $1::int) g))`;

export async function runQueueDepthPhase(options: {
  pool: pg.Pool;
  servers: QueueDepthServer[];
  factory: RequestFactory;
  keysFor: (ratePerSecond: number, seconds: number) => number;
  connections: number;
  sliceSeconds: number;
  database: string;
  log: (line: string) => void;
}): Promise<QueueDepthResult | undefined> {
  const { depth, slices } = queueDepthSettings();
  if (depth === 0) return undefined;
  const { pool, servers, factory, connections, sliceSeconds, log } = options;
  const depths = [0, depth];
  const figures = new Map<
    string,
    { sliceRps: number[]; latencies: number[]; failed: number; ok: number; postgresMs: number }
  >();
  const cursors = new Map<string, KeyCursor>();
  for (const server of servers) {
    // Keys for up to 1,500 placements/s over all of this server's slices (the service's limits bind per key).
    cursors.set(server.label, factory.cursor(server.region, options.keysFor(1500, 2 * slices * sliceSeconds + 2)));
    for (const d of depths)
      figures.set(`${server.label}@${d}`, { sliceRps: [], latencies: [], failed: 0, ok: 0, postgresMs: 0 });
  }
  const loadAverages: number[] = [];
  log(
    `queue depth: placement with 0 and ${depth} jobs queued, ${slices} rounds of a ${sliceSeconds} s slice per server and depth`,
  );
  for (let round = 0; round < slices; round++) {
    await pool.query("TRUNCATE graphile_worker._private_jobs");
    for (const d of depths) {
      if (d > 0) {
        const filled = (await pool.query<{ n: number }>(FILL_QUEUE, [d])).rows[0]!.n;
        if (filled !== d) throw new Error(`queue depth: queued ${filled} jobs, wanted ${d}`);
      }
      // Rotate who goes first.
      for (const server of servers.map((_, i) => servers[(i + round) % servers.length]!)) {
        loadAverages.push(os.loadavg()[0]!);
        const before = snapshotCpu();
        const result = await runLoad({
          port: server.port,
          connections,
          durationSeconds: sliceSeconds,
          endpoint: "place",
          trxPrefix: `q${d}-${server.label.replace(/\W+/g, "")}`,
          factory,
          cursor: cursors.get(server.label)!,
        });
        const record = figures.get(`${server.label}@${d}`)!;
        record.postgresMs += diffCpu(before, snapshotCpu(), server.pid, options.database).postgresMs;
        record.sliceRps.push(result.ok / result.seconds);
        for (const ms of result.latencies) record.latencies.push(ms);
        record.failed += result.non2xx + result.errors;
        record.ok += result.ok;
      }
    }
  }
  await pool.query("TRUNCATE graphile_worker._private_jobs");

  const out: QueueDepthFigures[] = [];
  for (const server of servers) {
    for (const d of depths) {
      const record = figures.get(`${server.label}@${d}`)!;
      const sorted = record.latencies.sort((a, b) => a - b);
      const row = {
        label: server.label,
        depth: d,
        sliceRps: record.sliceRps,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        failed: record.failed,
        postgresUsPerOrder: (record.postgresMs * 1000) / Math.max(1, record.ok),
      };
      out.push(row);
      log(
        `queue depth ${String(d).padStart(6)} ${server.label.padEnd(10)} ${median(row.sliceRps).toFixed(0).padStart(6)} orders/s ` +
          `(slices ${Math.min(...row.sliceRps).toFixed(0)}-${Math.max(...row.sliceRps).toFixed(0)}) p50 ${row.p50.toFixed(1)} p99 ${row.p99.toFixed(1)} ms, failed ${row.failed}, postgres ${row.postgresUsPerOrder.toFixed(0)} µs/order`,
      );
    }
  }
  return { depth, slices, sliceSeconds, figures: out, loadAverages };
}

/** The phase's section of the report (empty when it did not run). */
export function renderQueueDepth(result: QueueDepthResult | undefined): string {
  if (!result) return "";
  const lines = [
    "",
    `### Placement against the job queue's depth (0 and ${result.depth.toLocaleString("en")} jobs queued)`,
    "",
    `POST /orders at the same 50-connection load with the job queue empty and with ${result.depth} fulfil_order jobs waiting ` +
      `(keyed, due in a day; no worker runs). ${result.slices} rounds; each empties the queue, runs a ${result.sliceSeconds} s slice of each server, ` +
      `fills the queue and runs a slice of each server again (the slices' own placements add their jobs on top). ` +
      `Load average during the phase: ${Math.min(...result.loadAverages).toFixed(1)}–${Math.max(...result.loadAverages).toFixed(1)}.`,
    "",
    "| server | depth | orders/s: median (slices min–max) | p50 ms | p99 ms | failed | postgres µs/order | orders/s vs depth 0 | p50 vs depth 0 |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const row of result.figures) {
    const base = result.figures.find((r) => r.label === row.label && r.depth === 0)!;
    const rps = median(row.sliceRps);
    const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : "n/a");
    lines.push(
      `| ${row.label} | ${row.depth} | ${rps.toFixed(0)} (${Math.min(...row.sliceRps).toFixed(0)}–${Math.max(...row.sliceRps).toFixed(0)}) | ` +
        `${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.failed} | ${row.postgresUsPerOrder.toFixed(0)} | ${ratio(rps, median(base.sliceRps))} | ${ratio(row.p50, base.p50)} |`,
    );
  }
  lines.push("");
  return lines.join("\n");
}
