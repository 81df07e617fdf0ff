// npm run bench: the API under load, next to a floor that does the same SQL with nothing else.
//
//   1. the bench's own database (see database.ts): reset, migrated, demo catalog, funded accounts, keys
//   2. the servers as separate processes: the service as production runs it, the same service with
//      key lookup and rate limiting replaced (serve-auth-off.ts), and the floor (floor-server.ts)
//   3. the worker phase: a backlog placed through the service, drained by `scripts/worker.ts`, then a
//      steady placement rate for placement-to-completion times (worker-phase.ts)
//   4. the webhook comparison: rounds without and with one endpoint per account (delivering while
//      fulfilling, or after), delivering to a local receiver (webhook-phase.ts)
//   5. per endpoint: a warm-up of each server, then measured slices, the servers taking turns, then
//      a one-connection latency probe of each
//   6. the ledger check, the report (stdout and bench/RESULTS.md)
//
// Everything it starts, it stops, on success, failure or Ctrl-C.
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { projectRoot, pointAtDatabase } from "@/lib/config/env";
import { getPool } from "@/lib/db/pool";
import { checkLedger } from "@/lib/wallet/sql/check-ledger";
import { readBenchConfig } from "./config";
import { closeBench, openBenchDatabase, resetAndMigrate, seedBench } from "./database";
import { diffCpu, snapshotCpu, type CpuBreakdown } from "./cpu-usage";
import {
  ENDPOINTS,
  RequestFactory,
  median,
  percentile,
  probeLatency,
  probeRateLimit,
  runLoad,
  type KeyCursor,
} from "./load";
import { runBench, startProcess, stopAll, type BenchProcess } from "./processes";
import {
  renderReport,
  writeResultsFile,
  VARIANT_LABEL,
  type BenchReport,
  type SeriesRecord,
  type Variant,
} from "./report";
import { runWebhookPhase } from "./webhook-phase";
import { runWorkerPhase } from "./worker-phase";
import { renderQueueDepth, runQueueDepthPhase } from "./queue-depth";

const log = (line: string) => console.log(`[bench] ${line}`);

/**
 * Uses of each key within one endpoint's measured slices: about 25, as for resellers each sending
 * ~25 requests a minute. The slices of one server spread over about a minute, so each key stays
 * far inside its limits (well under 1 request/s against 10/s, about 25 in that minute against 80)
 * even if the warm-up underestimated the rate twofold.
 */
const USES_PER_KEY = 25;

function shell(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: "utf8" }).trim();
  } catch {
    return "n/a";
  }
}

function addCpu(total: CpuBreakdown, more: CpuBreakdown): void {
  total.serverMs += more.serverMs;
  total.postgresMs += more.postgresMs;
  total.redisMs += more.redisMs;
  total.loadGeneratorMs += more.loadGeneratorMs;
  total.otherMs += more.otherMs;
}

async function main(): Promise<void> {
  const began = Date.now();
  const config = readBenchConfig();
  // As the user ran it (before DATABASE_URL is pointed at the bench's own database), credentials hidden.
  const commandLine = [
    ...["DATABASE_URL", "REDIS_URL"]
      .filter((name) => process.env[name])
      .map((name) => `${name}=${process.env[name]!.replace(/\/\/[^@]*@/, "//***@")}`),
    ...Object.keys(process.env)
      .filter((name) => name.startsWith("BENCH_"))
      .map((name) => `${name}=${process.env[name]}`),
    "npm run bench",
  ].join(" ");
  // The bench process runs the seed and the ledger check through lib/: same secrets as the servers.
  Object.assign(process.env, config.secrets);
  const loadAtStart = os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");
  log(`load average ${loadAtStart} on ${os.cpus().length} cores`);

  // Never fewer keys than accounts: a small block would put concurrent orders on few wallets and
  // measure row-lock waits on their balance instead of the API.
  const keysFor = (ratePerSecond: number, seconds: number) =>
    Math.max(config.accounts, Math.ceil((ratePerSecond * seconds) / USES_PER_KEY));

  const db = await openBenchDatabase();
  pointAtDatabase(db.url);
  const databaseName = new URL(db.url).pathname.slice(1);
  const notes: string[] = [];
  try {
    log(`database: ${db.description}`);
    await resetAndMigrate(db.url);
    const seedStarted = Date.now();
    const identities = await seedBench({ accounts: config.accounts, keys: config.keys });
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    log(`seeded ${config.accounts} accounts and ${config.keys} keys in ${seedSeconds.toFixed(1)} s`);
    const pool = getPool();
    const version = (await pool.query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v")).rows[0]!.v;

    // The sandbox stands in for a supplier, which production refuses (no live order goes to it, and
    // SUPPLIER must name a real one), so the processes run with NODE_ENV=development: nothing else on
    // the API's or the worker's path reads NODE_ENV, and the secrets come from the environment either way.
    const childEnv: Record<string, string | undefined> = {
      ...config.secrets,
      NODE_ENV: "development",
      DATABASE_URL: db.url,
      SERVE_DASHBOARD: "0",
      HOST: "127.0.0.1",
      PORT: "0",
      PG_POOL_MAX: String(config.pgPoolMax),
      RATE_LIMIT_PREFIX: config.rateLimitPrefix,
      SUPPLIER: "sandbox",
      SANDBOX_LATENCY_MS: "0",
    };
    const profileDir = path.join(projectRoot, "bench", "profiles");
    // The three servers the report compares.
    const definitions: Record<Variant, { entry: string; env?: Record<string, string>; nodeArgs?: string[] }> = {
      service: {
        entry: "scripts/serve.ts",
        nodeArgs: config.cpuProfile ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [],
      },
      noauth: { entry: "bench/serve-auth-off.ts" },
      floor: { entry: "bench/floor-server.ts" },
    };
    const wanted = Object.keys(definitions) as Variant[];
    const started = await Promise.all(
      wanted.map((variant) =>
        startProcess({
          name: variant,
          entry: definitions[variant].entry,
          env: { ...childEnv, ...definitions[variant].env },
          nodeArgs: definitions[variant].nodeArgs,
          log,
        }),
      ),
    );
    const servers: Partial<Record<Variant, BenchProcess>> = Object.fromEntries(
      wanted.map((variant, i) => [variant, started[i]]),
    );
    const service = servers.service!;
    const noauth = servers.noauth!;
    log(`servers up: ${wanted.map((v) => `${v} :${servers[v]!.port}`).join(", ")}`);

    const serviceLimits = await probeRateLimit(service.port!, identities.probeKey);
    const noauthLimits = await probeRateLimit(noauth.port!, identities.probeKey);
    const limiterActive = (serviceLimits[429] ?? 0) > 0;
    log(
      `rate limiter ${limiterActive ? "active" : "NOT active"} in the service: ${JSON.stringify(serviceLimits)}; auth-off: ${JSON.stringify(noauthLimits)}`,
    );
    if ((noauthLimits[429] ?? 0) > 0) {
      notes.push(
        "the auth-off service still answered 429 to a burst: its figures include rate limiting (bench/serve-auth-off.ts)",
      );
    }
    if (!limiterActive)
      notes.push("the per-key rate limiter was not active in the service, so the auth+RL cost is auth alone");

    // Orders placed beforehand: the worker's backlog, and what GET /orders/:id and /history read.
    const factory = new RequestFactory(identities.keys);
    const backlogPrefix = "pre";
    const preplace = await runLoad({
      port: service.port!,
      connections: Math.min(config.connections, config.accounts * config.ordersPerAccount),
      amount: config.accounts * config.ordersPerAccount,
      endpoint: "place",
      trxPrefix: backlogPrefix,
      factory,
      cursor: factory.cursor("open", identities.keys.length),
    });
    log(
      `placed ${preplace.ok} orders beforehand (${preplace.non2xx + preplace.errors} failed) at ${(preplace.ok / preplace.seconds).toFixed(0)}/s`,
    );
    const placed = await pool.query<{ account_id: number; ids: string[] }>(
      `SELECT account_id, array_agg(public_id ORDER BY id) AS ids FROM orders GROUP BY account_id`,
    );
    const idsByAccount = new Map(placed.rows.map((row) => [row.account_id, row.ids]));
    if (identities.accountIds.some((id) => !idsByAccount.get(id)?.length))
      throw new Error("some accounts have no orders to read");
    factory.setOrders(identities.accountIds.map((id) => idsByAccount.get(id)!));

    const worker = !config.workerPhase
      ? undefined
      : await runWorkerPhase({
          pool,
          servicePort: service.port!,
          factory,
          keysFor,
          backlogPrefix,
          database: databaseName,
          apiPlacementRate: preplace.ok / preplace.seconds,
          steadySeconds: config.workerSteadySeconds,
          workerEnv: childEnv,
          log,
        });

    const webhooks = !config.webhooks.enabled
      ? undefined
      : await runWebhookPhase({
          pool,
          servicePort: service.port!,
          factory,
          keysFor,
          accountIds: identities.accountIds,
          ordersPerRound: config.webhooks.ordersPerRound,
          cycles: config.webhooks.cycles,
          connections: config.connections,
          database: databaseName,
          workerEnv: childEnv,
          loadAverage: () => os.loadavg()[0]!,
          profileDir: config.cpuProfile ? profileDir : undefined,
          log,
        });

    const series: SeriesRecord[] = [];
    const endpoints = ENDPOINTS.filter((e) => !config.endpoints || config.endpoints.includes(e.name));
    const variants = wanted;
    // The server that enforces the per-key limits draws keys from the limited region.
    const regionOf = (variant: Variant) => (variant === "service" ? "limited" : "open");
    const measuredSeconds = config.slices * config.sliceSeconds;
    // No worker runs during the series, so the fulfilment jobs of POST /orders would pile up in the
    // queue, which a production worker keeps short. A long queue is not harmless: add_job's key
    // clearing UPDATE can run on a cached generic plan that scans the whole queue, so placement
    // would get slower with every slice, by how much depending on each server's plan-cache history.
    // So the queue is emptied after every POST run; the orders stay "processing".
    const emptyQueue = async (endpoint: string) => {
      if (endpoint === "place") await pool.query("TRUNCATE graphile_worker._private_jobs");
    };

    for (const { name: endpoint, label } of endpoints) {
      // Tidy tables before every series (the orders of the series before are dead-tuple-free and
      // counted), so autovacuum is less likely to start in the middle of one server's slices.
      await pool.query("VACUUM (ANALYZE)");
      const cursors = new Map<Variant, KeyCursor>();
      const records = new Map<Variant, SeriesRecord>();
      for (const variant of variants) {
        const server = servers[variant]!;
        // A high first guess (more keys is the safe side), then the warm-up's own rate, with room:
        // a warm-up slowed by JIT or a neighbour must not crowd the measured keys.
        const guess = endpoint === "place" ? 1500 : 6000;
        const warm = await runLoad({
          port: server.port!,
          connections: config.connections,
          durationSeconds: config.warmupSeconds,
          endpoint,
          trxPrefix: `${variant}-w`,
          factory,
          cursor: factory.cursor(regionOf(variant), keysFor(guess, config.warmupSeconds)),
        });
        await emptyQueue(endpoint);
        const warmRate = (warm.ok + warm.non2xx) / Math.max(0.1, warm.seconds);
        cursors.set(
          variant,
          factory.cursor(regionOf(variant), keysFor(Math.max(50, 1.5 * warmRate), measuredSeconds + 2)),
        );
        records.set(variant, {
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
          keys: cursors.get(variant)!.size,
          loadAverages: [],
        });
      }

      for (let slice = 0; slice < config.slices; slice++) {
        // Take turns, and rotate who goes first, so drift and neighbours spread over all servers.
        const order = variants.map((_, i) => variants[(i + slice) % variants.length]!);
        for (const variant of order) {
          const server = servers[variant]!;
          const record = records.get(variant)!;
          record.loadAverages.push(os.loadavg()[0]!);
          const before = snapshotCpu();
          const result = await runLoad({
            port: server.port!,
            connections: config.connections,
            durationSeconds: config.sliceSeconds,
            endpoint,
            trxPrefix: `${variant}-m`,
            factory,
            cursor: cursors.get(variant)!,
          });
          addCpu(record.cpu, diffCpu(before, snapshotCpu(), server.pid, databaseName));
          await emptyQueue(endpoint);
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

      // The one-connection probe: ~1,000 requests/s at one connection, so on a block of its own
      // (each key used about once). The servers take turns, 3 chunks each, so the aftermath of the
      // last slice (autovacuum, a checkpoint) does not land on whichever server is probed first.
      const probeTimes = new Map<Variant, number[]>(variants.map((v) => [v, []]));
      const probeFailures = new Map<Variant, number>(variants.map((v) => [v, 0]));
      const probeCursors = new Map<Variant, KeyCursor>(
        variants.map((v) => [v, factory.cursor(regionOf(v), config.probeRequests + 30)]),
      );
      for (let chunk = 0; chunk < 3; chunk++) {
        for (const variant of variants.map((_, i) => variants[(i + chunk) % variants.length]!)) {
          const failed = await probeLatency(
            servers[variant]!.port!,
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
      await emptyQueue(endpoint);

      for (const variant of variants) {
        const record = records.get(variant)!;
        const times = probeTimes.get(variant)!.sort((a, b) => a - b);
        record.probe = { p50: percentile(times, 50), p99: percentile(times, 99), non2xx: probeFailures.get(variant)! };
        if (endpoint === "place") {
          const stored = (
            await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE trxid LIKE $1`, [
              `${variant}-m-%`,
            ])
          ).rows[0]!.n;
          record.placement = { answered2xx: record.ok, stored, sent: record.sent };
        }
        const sorted = record.latencies.sort((a, b) => a - b);
        const cpu = record.cpu;
        const share = (ms: number) => `${(ms / record.seconds / 10).toFixed(0)}%`;
        log(
          `${label.padEnd(16)} ${VARIANT_LABEL[variant].padEnd(30)} ${median(record.sliceRps).toFixed(0).padStart(6)} req/s ` +
            `(slices ${Math.min(...record.sliceRps).toFixed(0)}-${Math.max(...record.sliceRps).toFixed(0)}) ` +
            `p50 ${percentile(sorted, 50).toFixed(1)} p99 ${percentile(sorted, 99).toFixed(1)} ms, non-2xx ${record.non2xx}, errors ${record.errors}; ` +
            `1-conn p50 ${record.probe.p50.toFixed(2)} ms; CPU node ${share(cpu.serverMs)} pg ${share(cpu.postgresMs)} redis ${share(cpu.redisMs)} other ${share(cpu.otherMs)}`,
        );
        series.push(record);
      }
    }

    const queueDepth =
      config.endpoints && !config.endpoints.includes("place")
        ? undefined
        : await runQueueDepthPhase({
            pool,
            servers: [
              { label: "service", port: service.port!, pid: service.pid, region: "limited" },
              { label: "floor", port: servers.floor!.port!, pid: servers.floor!.pid, region: "open" },
            ],
            factory,
            keysFor,
            connections: config.connections,
            sliceSeconds: config.sliceSeconds,
            database: databaseName,
            log,
          });

    log("checking the ledger");
    const ledgerProblems = await checkLedger();
    const ordersTotal = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders`)).rows[0]!.n;
    await stopAll();

    const report: BenchReport = {
      date: new Date().toISOString(),
      totalSeconds: (Date.now() - began) / 1000,
      machine: {
        nproc: Number(shell("nproc", [])) || os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? "unknown CPU",
        memory: shell("free", ["-h"]),
        node: process.version,
        postgres: version,
        loadAtStart,
      },
      commandLine,
      settings: {
        connections: config.connections,
        slices: config.slices,
        sliceSeconds: config.sliceSeconds,
        warmupSeconds: config.warmupSeconds,
        probeRequests: config.probeRequests,
        workerSteadySeconds: config.workerSteadySeconds,
        pgPoolMax: config.pgPoolMax,
      },
      database: db.description,
      redis: process.env.REDIS_URL
        ? `REDIS_URL (${process.env.REDIS_URL.replace(/\/\/[^@]*@/, "//***@")}), key prefix ${config.rateLimitPrefix}`
        : "REDIS_URL not set (the service counts in process memory)",
      rateLimiter: { active: limiterActive, service: serviceLimits, noauth: noauthLimits },
      seed: { accounts: config.accounts, keys: config.keys, seconds: seedSeconds, preplacedOrders: preplace.ok },
      series,
      peakRssKiB: {
        ...(Object.fromEntries(wanted.map((v) => [v, servers[v]!.peakRssKiB])) as Partial<Record<Variant, number>>),
        worker: worker?.peakRssKiB ?? 0,
      },
      worker,
      webhooks,
      ordersTotal,
      ledgerProblems,
      notes,
    };
    const text = [renderReport(report), renderQueueDepth(queueDepth)].filter(Boolean).join("\n");
    console.log(`\n${text}\n`);
    // BENCH_RESULTS: somewhere else for partial runs (one endpoint, profiling), so RESULTS.md keeps the full run.
    const resultsFile = path.resolve(process.env.BENCH_RESULTS ?? path.join(projectRoot, "bench", "RESULTS.md"));
    writeResultsFile(resultsFile, text);
    log(`written to ${path.relative(process.cwd(), resultsFile)}`);
    if (config.cpuProfile)
      log(
        `service (and webhook rounds' worker) CPU profiles in ${path.relative(process.cwd(), profileDir)} (open in Chrome DevTools)`,
      );
  } finally {
    await closeBench(db);
  }
}

runBench({ tag: "bench", title: "bench", log }, main);
