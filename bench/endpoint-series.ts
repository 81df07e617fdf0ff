// One endpoint's series (step 5 of run.ts): a warm-up of each server, then measured slices, the
// servers taking turns, then a one-connection latency probe of each, summed up per server.
import os from "node:os";
import type pg from "pg";
import type { BenchConfig } from "./config";
import { diffCpu, snapshotCpu, type CpuBreakdown } from "./cpu-usage";
import {
  median,
  percentile,
  probeLatency,
  runLoad,
  type EndpointName,
  type KeyCursor,
  type RequestFactory,
} from "./load";
import type { BenchProcess } from "./processes";
import { VARIANT_LABEL, type SeriesRecord, type Variant } from "./report";

export interface SeriesSetup {
  config: BenchConfig;
  pool: pg.Pool;
  servers: Partial<Record<Variant, BenchProcess>>;
  variants: Variant[];
  factory: RequestFactory;
  keysFor: (ratePerSecond: number, seconds: number) => number;
  database: string;
  log: (line: string) => void;
}

// The server that enforces the per-key limits draws keys from the limited region.
const regionOf = (variant: Variant) => (variant === "service" ? "limited" : "open");

/**
 * No worker runs during the series, so the fulfilment jobs of POST /orders would pile up in the
 * queue, which a production worker keeps short. A long queue is not harmless: add_job's key
 * clearing UPDATE can run on a cached generic plan that scans the whole queue, so placement
 * would get slower with every slice, by how much depending on each server's plan-cache history.
 * So the queue is emptied after every POST run; the orders stay "processing".
 */
async function emptyQueue(pool: pg.Pool, endpoint: EndpointName): Promise<void> {
  if (endpoint === "place") await pool.query("TRUNCATE graphile_worker._private_jobs");
}

function addCpu(total: CpuBreakdown, more: CpuBreakdown): void {
  total.serverMs += more.serverMs;
  total.postgresMs += more.postgresMs;
  total.redisMs += more.redisMs;
  total.loadGeneratorMs += more.loadGeneratorMs;
  total.otherMs += more.otherMs;
}

/** The records of one endpoint's series, one per server, in `setup.variants` order. */
export async function measureEndpointSeries(
  setup: SeriesSetup,
  endpoint: EndpointName,
  label: string,
): Promise<SeriesRecord[]> {
  // Tidy tables before every series (the orders of the series before are dead-tuple-free and
  // counted), so autovacuum is less likely to start in the middle of one server's slices.
  await setup.pool.query("VACUUM (ANALYZE)");
  const cursors = new Map<Variant, KeyCursor>();
  const records = new Map<Variant, SeriesRecord>();
  for (const variant of setup.variants) {
    const cursor = await warmUp(setup, endpoint, variant);
    cursors.set(variant, cursor);
    records.set(variant, emptyRecord(endpoint, variant, cursor.size));
  }
  for (let slice = 0; slice < setup.config.slices; slice++) await runSlice(setup, endpoint, slice, cursors, records);
  await probeOneConnection(setup, endpoint, records);
  const series: SeriesRecord[] = [];
  for (const variant of setup.variants) {
    const record = records.get(variant)!;
    await countStoredPlacements(setup.pool, endpoint, record);
    logRecord(setup.log, label, record);
    series.push(record);
  }
  return series;
}

/** Warms `variant` up and answers the key block its measured slices draw from. */
async function warmUp(setup: SeriesSetup, endpoint: EndpointName, variant: Variant): Promise<KeyCursor> {
  const { config, factory, keysFor } = setup;
  // A high first guess (more keys is the safe side), then the warm-up's own rate, with room:
  // a warm-up slowed by JIT or a neighbour must not crowd the measured keys.
  const guess = endpoint === "place" ? 1500 : 6000;
  const warm = await runLoad({
    port: setup.servers[variant]!.port!,
    connections: config.connections,
    durationSeconds: config.warmupSeconds,
    endpoint,
    trxPrefix: `${variant}-w`,
    factory,
    cursor: factory.cursor(regionOf(variant), keysFor(guess, config.warmupSeconds)),
  });
  await emptyQueue(setup.pool, endpoint);
  const warmRate = (warm.ok + warm.non2xx) / Math.max(0.1, warm.seconds);
  const measuredSeconds = config.slices * config.sliceSeconds;
  return factory.cursor(regionOf(variant), keysFor(Math.max(50, 1.5 * warmRate), measuredSeconds + 2));
}

function emptyRecord(endpoint: EndpointName, variant: Variant, keys: number): SeriesRecord {
  return {
    endpoint,
    variant,
    sliceRps: [],
    latencies: [],
    ok: 0,
    non2xx: 0,
    errors: 0,
    sent: 0,
    seconds: 0,
    statusCodes: {},
    cpu: { serverMs: 0, postgresMs: 0, redisMs: 0, loadGeneratorMs: 0, otherMs: 0 },
    keys,
    loadAverages: [],
  };
}

/** One measured slice of each server. */
async function runSlice(
  setup: SeriesSetup,
  endpoint: EndpointName,
  slice: number,
  cursors: Map<Variant, KeyCursor>,
  records: Map<Variant, SeriesRecord>,
): Promise<void> {
  const { variants, config } = setup;
  // Take turns, and rotate who goes first, so drift and neighbours spread over all servers.
  const order = variants.map((_, i) => variants[(i + slice) % variants.length]!);
  for (const variant of order) {
    const server = setup.servers[variant]!;
    const record = records.get(variant)!;
    record.loadAverages.push(os.loadavg()[0]!);
    const before = snapshotCpu();
    const result = await runLoad({
      port: server.port!,
      connections: config.connections,
      durationSeconds: config.sliceSeconds,
      endpoint,
      trxPrefix: `${variant}-m`,
      factory: setup.factory,
      cursor: cursors.get(variant)!,
    });
    addCpu(record.cpu, diffCpu(before, snapshotCpu(), server.pid, setup.database));
    await emptyQueue(setup.pool, endpoint);
    record.sliceRps.push((result.ok + result.non2xx) / result.seconds);
    for (const ms of result.latencies) record.latencies.push(ms);
    record.ok += result.ok;
    record.non2xx += result.non2xx;
    record.errors += result.errors;
    record.sent += result.sent;
    record.seconds += result.seconds;
    for (const [code, count] of Object.entries(result.statusCodes))
      record.statusCodes[code] = (record.statusCodes[code] ?? 0) + count;
  }
}

/**
 * The one-connection probe: ~1,000 requests/s at one connection, so on a block of its own (each key
 * used about once). The servers take turns, 3 chunks each, so the aftermath of the last slice
 * (autovacuum, a checkpoint) does not land on whichever server is probed first.
 */
async function probeOneConnection(
  setup: SeriesSetup,
  endpoint: EndpointName,
  records: Map<Variant, SeriesRecord>,
): Promise<void> {
  const { variants, config, factory } = setup;
  const probeTimes = new Map<Variant, number[]>(variants.map((v) => [v, []]));
  const probeFailures = new Map<Variant, number>(variants.map((v) => [v, 0]));
  const probeCursors = new Map<Variant, KeyCursor>(
    variants.map((v) => [v, factory.cursor(regionOf(v), config.probeRequests + 30)]),
  );
  for (let chunk = 0; chunk < 3; chunk++) {
    for (const variant of variants.map((_, i) => variants[(i + chunk) % variants.length]!)) {
      const failed = await probeLatency(
        setup.servers[variant]!.port!,
        endpoint,
        `${variant}-p`,
        factory,
        probeCursors.get(variant)!,
        Math.ceil(config.probeRequests / 3),
        probeTimes.get(variant)!,
      );
      probeFailures.set(variant, probeFailures.get(variant)! + failed);
    }
  }
  await emptyQueue(setup.pool, endpoint);
  for (const variant of variants) {
    const times = probeTimes.get(variant)!.sort((a, b) => a - b);
    records.get(variant)!.probe = {
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      non2xx: probeFailures.get(variant)!,
    };
  }
}

/** For POST /orders: how many of the measured placements were stored, against the 2xx answers. */
async function countStoredPlacements(pool: pg.Pool, endpoint: EndpointName, record: SeriesRecord): Promise<void> {
  if (endpoint !== "place") return;
  const stored = (
    await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE trxid LIKE $1`, [
      `${record.variant}-m-%`,
    ])
  ).rows[0]!.n;
  record.placement = { answered2xx: record.ok, stored, sent: record.sent };
}

function logRecord(log: (line: string) => void, label: string, record: SeriesRecord): void {
  const sorted = record.latencies.sort((a, b) => a - b);
  const cpu = record.cpu;
  const share = (ms: number) => `${(ms / record.seconds / 10).toFixed(0)}%`;
  log(
    `${label.padEnd(16)} ${VARIANT_LABEL[record.variant].padEnd(30)} ${median(record.sliceRps).toFixed(0).padStart(6)} req/s ` +
      `(slices ${Math.min(...record.sliceRps).toFixed(0)}-${Math.max(...record.sliceRps).toFixed(0)}) ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} p99 ${percentile(sorted, 99).toFixed(1)} ms, non-2xx ${record.non2xx}, errors ${record.errors}; ` +
      `1-conn p50 ${record.probe!.p50.toFixed(2)} ms; CPU node ${share(cpu.serverMs)} pg ${share(cpu.postgresMs)} redis ${share(cpu.redisMs)} other ${share(cpu.otherMs)}`,
  );
}
