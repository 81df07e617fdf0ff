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
//      a one-connection latency probe of each; placement against the job queue's depth
//   6. the end-to-end rate: placement, fulfilment and webhook delivery together at rising fixed
//      rates, last, so the orders it adds weigh on no other phase (end-to-end-phase.ts)
//   7. the ledger check, the report (stdout and bench/RESULTS.md)
//
// Everything it starts, it stops, on success, failure or Ctrl-C.
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { projectRoot, pointAtDatabase } from "@/lib/config/env";
import { getPool } from "@/lib/db/pool";
import { checkLedger } from "@/lib/wallet/sql/check-ledger";
import { readBenchConfig, type BenchConfig } from "./config";
import { closeBench, openBenchDatabase, resetAndMigrate, seedBench } from "./database";
import { measureEndpointSeries } from "./endpoint-series";
import { ENDPOINTS, RequestFactory, probeRateLimit, runLoad, type LoadResult } from "./load";
import { runBench, startProcess, stopAll, type BenchProcess } from "./processes";
import { renderReport, writeResultsFile, type BenchReport, type SeriesRecord, type Variant } from "./report";
import { runWebhookPhase } from "./webhook-phase";
import { runWorkerPhase } from "./worker-phase";
import { renderQueueDepth, runQueueDepthPhase } from "./queue-depth";
import { renderEndToEnd, runEndToEndPhase } from "./end-to-end-phase";

const log = (line: string) => console.log(`[bench] ${line}`);

/**
 * Uses of each key within one endpoint's measured slices: about 25, as for resellers each sending
 * ~25 requests a minute. The slices of one server spread over about a minute, so each key stays
 * far inside its limits (well under 1 request/s against 10/s, about 25 in that minute against 80)
 * even if the warm-up underestimated the rate twofold.
 */
const USES_PER_KEY = 25;

type Servers = Partial<Record<Variant, BenchProcess>>;
type Identities = Awaited<ReturnType<typeof seedBench>>;

function shell(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: "utf8" }).trim();
  } catch {
    return "n/a";
  }
}

/** The command as the user ran it (before DATABASE_URL is pointed at the bench's own database), credentials hidden. */
function describeCommandLine(): string {
  return [
    ...["DATABASE_URL", "REDIS_URL"]
      .filter((name) => process.env[name])
      .map((name) => `${name}=${process.env[name]!.replace(/\/\/[^@]*@/, "//***@")}`),
    ...Object.keys(process.env)
      .filter((name) => name.startsWith("BENCH_"))
      .map((name) => `${name}=${process.env[name]}`),
    "npm run bench",
  ].join(" ");
}

/**
 * The environment of every process the bench starts. The sandbox stands in for a supplier, which
 * production refuses (no live order goes to it, and SUPPLIER must name a real one), so the processes
 * run with NODE_ENV=development: nothing else on the API's or the worker's path reads NODE_ENV, and
 * the secrets come from the environment either way.
 */
function childEnvironment(config: BenchConfig, databaseUrl: string): Record<string, string | undefined> {
  return {
    ...config.secrets,
    NODE_ENV: "development",
    DATABASE_URL: databaseUrl,
    SERVE_DASHBOARD: "0",
    HOST: "127.0.0.1",
    PORT: "0",
    PG_POOL_MAX: String(config.pgPoolMax),
    RATE_LIMIT_PREFIX: config.rateLimitPrefix,
    SUPPLIER: "sandbox",
    SANDBOX_LATENCY_MS: "0",
  };
}

/** The three servers the report compares, as processes of their own. */
async function startServers(
  config: BenchConfig,
  childEnv: Record<string, string | undefined>,
  profileDir: string,
): Promise<{ servers: Servers; wanted: Variant[] }> {
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
  const servers: Servers = Object.fromEntries(wanted.map((variant, i) => [variant, started[i]]));
  log(`servers up: ${wanted.map((v) => `${v} :${servers[v]!.port}`).join(", ")}`);
  return { servers, wanted };
}

/** Whether the service's per-key limiter answers 429 to a burst, and the auth-off one does not. */
async function probeRateLimiters(servers: Servers, probeKey: string, notes: string[]) {
  const serviceLimits = await probeRateLimit(servers.service!.port!, probeKey);
  const noauthLimits = await probeRateLimit(servers.noauth!.port!, probeKey);
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
  return { active: limiterActive, service: serviceLimits, noauth: noauthLimits };
}

/** Orders placed beforehand: the worker's backlog, and what GET /orders/:id and /history read. */
async function placeBacklog(
  config: BenchConfig,
  pool: pg.Pool,
  service: BenchProcess,
  identities: Identities,
  factory: RequestFactory,
  backlogPrefix: string,
): Promise<LoadResult> {
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
  return preplace;
}

/** The report, printed and written to bench/RESULTS.md (or BENCH_RESULTS); phases that render their own sections after it. */
function publishReport(report: BenchReport, sections: string[]) {
  const text = [renderReport(report), ...sections].filter(Boolean).join("\n");
  console.log(`\n${text}\n`);
  // BENCH_RESULTS: somewhere else for partial runs (one endpoint, profiling), so RESULTS.md keeps the full run.
  const resultsFile = path.resolve(process.env.BENCH_RESULTS ?? path.join(projectRoot, "bench", "RESULTS.md"));
  writeResultsFile(resultsFile, text);
  log(`written to ${path.relative(process.cwd(), resultsFile)}`);
}

function describeMachine(postgres: string, loadAtStart: string): BenchReport["machine"] {
  return {
    nproc: Number(shell("nproc", [])) || os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown CPU",
    memory: shell("free", ["-h"]),
    node: process.version,
    postgres,
    loadAtStart,
  };
}

function describeSettings(config: BenchConfig): BenchReport["settings"] {
  return {
    connections: config.connections,
    slices: config.slices,
    sliceSeconds: config.sliceSeconds,
    warmupSeconds: config.warmupSeconds,
    probeRequests: config.probeRequests,
    workerSteadySeconds: config.workerSteadySeconds,
    pgPoolMax: config.pgPoolMax,
  };
}

/** The bench's database made ready: reset, migrated, the demo catalog, funded accounts and keys. */
async function prepareDatabase(config: BenchConfig, db: Awaited<ReturnType<typeof openBenchDatabase>>) {
  log(`database: ${db.description}`);
  await resetAndMigrate(db.url);
  const seedStarted = Date.now();
  const identities = await seedBench({ accounts: config.accounts, keys: config.keys });
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  log(`seeded ${config.accounts} accounts and ${config.keys} keys in ${seedSeconds.toFixed(1)} s`);
  const pool = getPool();
  const version = (await pool.query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v")).rows[0]!.v;
  return { identities, seedSeconds, pool, version };
}

/** Steps 3 to 6: the worker phase, the webhook comparison, each endpoint's series, the queue depth, the end-to-end rate. */
async function runPhases(options: {
  config: BenchConfig;
  pool: pg.Pool;
  servers: Servers;
  wanted: Variant[];
  identities: Identities;
  factory: RequestFactory;
  backlogPrefix: string;
  apiPlacementRate: number;
  keysFor: (ratePerSecond: number, seconds: number) => number;
  database: string;
  childEnv: Record<string, string | undefined>;
  profileDir: string;
}) {
  const { config, pool, servers, factory, keysFor, database, childEnv } = options;
  const service = servers.service!;
  const worker = !config.workerPhase
    ? undefined
    : await runWorkerPhase({
        pool,
        servicePort: service.port!,
        factory,
        keysFor,
        backlogPrefix: options.backlogPrefix,
        database,
        apiPlacementRate: options.apiPlacementRate,
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
        accountIds: options.identities.accountIds,
        ordersPerRound: config.webhooks.ordersPerRound,
        cycles: config.webhooks.cycles,
        connections: config.connections,
        database,
        workerEnv: childEnv,
        loadAverage: () => os.loadavg()[0]!,
        profileDir: config.cpuProfile ? options.profileDir : undefined,
        log,
      });
  const setup = { config, pool, servers, variants: options.wanted, factory, keysFor, database, log };
  const series: SeriesRecord[] = [];
  for (const { name, label } of ENDPOINTS.filter((e) => !config.endpoints || config.endpoints.includes(e.name)))
    series.push(...(await measureEndpointSeries(setup, name, label)));
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
          database,
          log,
        });
  const endToEnd = !config.endToEnd.enabled
    ? undefined
    : await runEndToEndPhase({
        pool,
        servicePort: service.port!,
        servicePid: service.pid,
        factory,
        keysFor,
        accountIds: options.identities.accountIds,
        database,
        workerEnv: childEnv,
        startRate: config.endToEnd.startRate,
        stepPercent: config.endToEnd.stepPercent,
        holdSeconds: config.endToEnd.holdSeconds,
        maxSteps: config.endToEnd.maxSteps,
        profileDir: config.cpuProfile ? options.profileDir : undefined,
        log,
      });
  return { worker, webhooks, series, queueDepth, endToEnd };
}

/** Everything the report tells, from what the run found. */
function assembleReport(found: {
  began: number;
  config: BenchConfig;
  db: Awaited<ReturnType<typeof openBenchDatabase>>;
  version: string;
  loadAtStart: string;
  commandLine: string;
  rateLimiter: BenchReport["rateLimiter"];
  seedSeconds: number;
  preplacedOrders: number;
  servers: Servers;
  wanted: Variant[];
  phases: Pick<BenchReport, "worker" | "webhooks" | "series">;
  ordersTotal: number;
  ledgerProblems: BenchReport["ledgerProblems"];
  notes: string[];
}): BenchReport {
  const { config, servers, phases } = found;
  return {
    date: new Date().toISOString(),
    totalSeconds: (Date.now() - found.began) / 1000,
    machine: describeMachine(found.version, found.loadAtStart),
    commandLine: found.commandLine,
    settings: describeSettings(config),
    database: found.db.description,
    redis: process.env.REDIS_URL
      ? `REDIS_URL (${process.env.REDIS_URL.replace(/\/\/[^@]*@/, "//***@")}), key prefix ${config.rateLimitPrefix}`
      : "REDIS_URL not set (the service counts in process memory)",
    rateLimiter: found.rateLimiter,
    seed: {
      accounts: config.accounts,
      keys: config.keys,
      seconds: found.seedSeconds,
      preplacedOrders: found.preplacedOrders,
    },
    series: phases.series,
    peakRssKiB: {
      ...(Object.fromEntries(found.wanted.map((v) => [v, servers[v]!.peakRssKiB])) as Partial<Record<Variant, number>>),
      worker: phases.worker?.peakRssKiB ?? 0,
    },
    worker: phases.worker,
    webhooks: phases.webhooks,
    ordersTotal: found.ordersTotal,
    ledgerProblems: found.ledgerProblems,
    notes: found.notes,
  };
}

async function main(): Promise<void> {
  const began = Date.now();
  const config = readBenchConfig();
  const commandLine = describeCommandLine();
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
  const database = new URL(db.url).pathname.slice(1);
  const notes: string[] = [];
  try {
    const { identities, seedSeconds, pool, version } = await prepareDatabase(config, db);
    const childEnv = childEnvironment(config, db.url);
    const profileDir = path.join(projectRoot, "bench", "profiles");
    const { servers, wanted } = await startServers(config, childEnv, profileDir);
    const rateLimiter = await probeRateLimiters(servers, identities.probeKey, notes);
    const factory = new RequestFactory(identities.keys);
    const backlogPrefix = "pre";
    const preplace = await placeBacklog(config, pool, servers.service!, identities, factory, backlogPrefix);
    const { worker, webhooks, series, queueDepth, endToEnd } = await runPhases({
      config,
      pool,
      servers,
      wanted,
      identities,
      factory,
      backlogPrefix,
      apiPlacementRate: preplace.ok / preplace.seconds,
      keysFor,
      database,
      childEnv,
      profileDir,
    });

    log("checking the ledger");
    const ledgerProblems = await checkLedger();
    const ordersTotal = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders`)).rows[0]!.n;
    await stopAll();

    const report = assembleReport({
      began,
      config,
      db,
      version,
      loadAtStart,
      commandLine,
      rateLimiter,
      seedSeconds,
      preplacedOrders: preplace.ok,
      servers,
      wanted,
      phases: { worker, webhooks, series },
      ordersTotal,
      ledgerProblems,
      notes,
    });
    publishReport(report, [renderQueueDepth(queueDepth), renderEndToEnd(endToEnd)]);
    if (config.cpuProfile)
      log(
        `service (and the webhook rounds' and end-to-end workers') CPU profiles in ${path.relative(process.cwd(), profileDir)} (open in Chrome DevTools)`,
      );
  } finally {
    await closeBench(db);
  }
}

runBench({ tag: "bench", title: "bench", log }, main);
