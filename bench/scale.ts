// npm run bench:scale: does the API stay flat when one reseller has a million orders?
//
//   1. two databases on one server: the bench's own (BENCH_DATABASE, default "scale_bench", on the
//      DATABASE_URL server, as bench/database.ts finds it) and "<it>_10k" beside it; both reset,
//      migrated and seeded to the 10k baseline (scale-seed.ts), then the first grown to 1,000,000
//      orders and 3,000,000 ledger entries
//   2. one service per database as production runs it (scripts/serve.ts, lean host, auth and the
//      rate limiter on), with scale-capture.ts loaded so the bench can record the SQL of one request
//   3. per request kind: its SQL captured and EXPLAINed in each, then one connection, then 50
//      (scale-load.ts), the two services taking turns run by run (rotating who goes first), so a
//      neighbour's burst of work on this shared machine lands on both sizes alike; then the
//      dashboard's lib functions timed in this process against each database (no Next build, no
//      admin login: the pages' own render work on top is not measured) and their SQL EXPLAINed
//   4. the books of both checked in SQL, the report written (stdout and bench/scale-results.md)
//
// The per-key limits are raised for the service (RATE_LIMIT_KEY_BURST / _PER_MINUTE): every
// /history request must come through reseller A's one key, which the real limits would stop at
// 10/s. The limiter still runs (same code, same Redis trips); only its quotas are bigger.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { projectRoot, pointAtDatabase } from "@/lib/config/env";
import { getPool } from "@/lib/db/pool";
import { readOrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import { readMargins } from "@/lib/dashboard/sql/read-margins";
import { foldOrderStatChanges } from "@/lib/dashboard/sql/fold-order-stat-changes";
import { readOrderBacklog } from "@/lib/dashboard/read-order-backlog";
import { listOrders } from "@/lib/dashboard/list-orders";
import { listGameLineSlugs } from "@/lib/dashboard/list-game-line-slugs";
import { searchOrders } from "@/lib/dashboard/search-orders";
import { listAccounts } from "@/lib/dashboard/list-accounts";
import { generateApiKey } from "@/lib/auth/api-key-format";
import pg from "pg";
import { closePool } from "@/lib/db/pool";
import { disconnectPrisma } from "@/lib/db/prisma";
import { closeBench, openBenchDatabase, resetAndMigrate, siblingDatabase } from "./database";
import { PLACE_PID, PLACE_USER_ID } from "./load";
import { runBench, startProcess, type BenchProcess } from "./processes";
import { startCapture, stopCapture, type CapturedStatement } from "./scale-capture";
import { explainStatements, type ExplainedStatement } from "./scale-explain";
import {
  loadConnections,
  probeOneConnection,
  sendOnce,
  summarise,
  type LatencyRun,
  type ScaleTarget,
} from "./scale-load";
import { renderScaleReport, type PhaseResult, type ScaleReport } from "./scale-report";
import { BIG_ORDERS, checkScaleInvariants, growScale, seedScaleBase, type ScaleIdentities } from "./scale-seed";

const log = (line: string) => console.log(`[scale] ${new Date().toISOString().slice(11, 19)} ${line}`);

// p99 at one connection is the 10th slowest of 1,000 answers; of 200 it would be the 2nd slowest,
// which one pause of the machine decides.
const ONE_CONN_REQUESTS = Number(process.env.SCALE_ONE_CONN_REQUESTS ?? 1000);
const ONE_CONN_SECONDS = Number(process.env.SCALE_ONE_CONN_S ?? 6);
const FIFTY_SECONDS = Number(process.env.SCALE_FIFTY_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DASHBOARD_RUNS = 5;
/** SCALE_DASHBOARD_ONLY=1: the dashboard's functions alone (no API requests), for a quick look at the overview. */
const DASHBOARD_ONLY = process.env.SCALE_DASHBOARD_ONLY === "1";
/** Runs per measurement and size, alternating the two services: the one-connection probe's requests and seconds, and the 50-connection time, are split over them. */
const ONE_CONN_ROUNDS = 5;
const FIFTY_ROUNDS = 3;

interface SampleOrder {
  id: number;
  public_id: string;
  trxid: string;
  idempotency_key: string;
}

async function captureRequest(service: BenchProcess, key: string, target: ScaleTarget): Promise<CapturedStatement[]> {
  const reply = (type: string) =>
    new Promise<{ type?: string; statements?: unknown }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} from the service`)), 30_000);
      const onMessage = (message: { type?: string; statements?: unknown }) => {
        if (message?.type !== type) return;
        clearTimeout(timer);
        service.child.off("message", onMessage);
        resolve(message);
      };
      service.child.on("message", onMessage);
    });
  const ready = reply("scale-capture-ready");
  service.child.send({ type: "scale-capture", on: true });
  await ready;
  const status = await sendOnce(service.port!, key, target.request(0));
  const done = reply("scale-captured");
  service.child.send({ type: "scale-capture", on: false });
  const { statements } = await done;
  if (status < 200 || status > 299) log(`  (captured request answered ${status})`);
  return statements as CapturedStatement[];
}

async function phaseTargets(
  pool: pg.Pool,
  ids: ScaleIdentities,
  phase: string,
): Promise<(ScaleTarget & { key: string })[]> {
  const count = async (sql: string, values: unknown[]) =>
    Number((await pool.query<{ n: string }>(sql, values)).rows[0]!.n);
  const historyTotal = await count(`SELECT count(*) AS n FROM orders WHERE account_id = $1 AND api_key_id = $2`, [
    ids.bigAccountId,
    ids.bigKeyId,
  ]);
  const ledgerTotal = await count(`SELECT count(*) AS n FROM ledger_entries WHERE account_id = $1`, [ids.bigAccountId]);
  // Orders with an idempotency key of their own, spread over the whole account.
  const sample = (
    await pool.query<SampleOrder>(
      `SELECT id, public_id, trxid, idempotency_key FROM orders TABLESAMPLE BERNOULLI (5)
        WHERE account_id = $1 AND idempotency_key <> trxid LIMIT 500`,
      [ids.bigAccountId],
    )
  ).rows;
  if (sample.length < 50) throw new Error(`only ${sample.length} sample orders`);
  const pick = (i: number) => sample[i % sample.length]!;
  const A = ids.bigKey;
  const B = ids.smallKey;
  const lastHistoryPage = Math.ceil(historyTotal / 20);
  const lastLedgerPage = Math.ceil(ledgerTotal / 50);
  const fixed = (path: string) => () => ({ method: "GET" as const, path });

  // The CSV statement of reseller A's first month: the same 10,000 orders at both sizes (the grown
  // ones come after it), so the 1M figure is what the rest of the account's history costs it.
  const month = ids.statementMonth;
  const statementPath = `/ledger?format=csv&from=${encodeURIComponent(month.from)}&to=${encodeURIComponent(month.to)}`;

  const targets: (ScaleTarget & { key: string })[] = [
    { key: A, name: "history-simple", label: "GET /history (simple, limit 30)", request: fixed("/history") },
    { key: A, name: "history-p1", label: "GET /history?page=1", request: fixed("/history?page=1") },
    { key: A, name: "history-p500", label: "GET /history?page=500", request: fixed("/history?page=500") },
    {
      key: A,
      name: "history-last",
      label: `GET /history, last page (${phase}: page ${lastHistoryPage})`,
      request: fixed(`/history?page=${Math.min(lastHistoryPage, 100_000)}`),
    },
    { key: A, name: "ledger-p1", label: "GET /ledger (first page)", request: fixed("/ledger") },
    {
      key: A,
      name: "ledger-last",
      label: `GET /ledger, last page (${phase}: page ${lastLedgerPage})`,
      request: fixed(`/ledger?page=${Math.min(lastLedgerPage, 100_000)}`),
    },
    {
      key: A,
      name: "ledger-csv",
      label: "GET /ledger?format=csv, A's first month (its first 10,000 orders)",
      request: fixed(statementPath),
    },
    {
      key: A,
      name: "order-publicId",
      label: "GET /orders/:id by public id",
      request: (i) => ({ method: "GET", path: `/orders/${pick(i).public_id}` }),
    },
    {
      key: A,
      name: "order-trxid",
      label: "GET /orders/:id by trxid",
      request: (i) => ({ method: "GET", path: `/orders/${encodeURIComponent(pick(i).trxid)}` }),
    },
    {
      key: A,
      name: "order-idempotencyKey",
      label: "GET /orders/:id by idempotency key",
      request: (i) => ({ method: "GET", path: `/orders/${encodeURIComponent(pick(i).idempotency_key)}` }),
    },
    {
      key: A,
      name: "order-id",
      label: "GET /orders/:id by numeric id",
      request: (i) => ({ method: "GET", path: `/orders/${pick(i).id}` }),
    },
    {
      key: A,
      name: "place",
      label: "POST /orders (reseller A's wallet)",
      request: (i) => ({
        method: "POST",
        path: "/orders",
        body: JSON.stringify({
          pid: PLACE_PID,
          trxid: `scale-${phase}-${crypto.randomUUID()}-${i}`,
          userId: PLACE_USER_ID,
        }),
      }),
    },
    {
      key: B,
      name: "b-history-p1",
      label: "reseller B (200 orders): GET /history?page=1",
      request: fixed("/history?page=1"),
    },
    { key: B, name: "b-ledger-p1", label: "reseller B (200 orders): GET /ledger", request: fixed("/ledger") },
  ];
  return targets;
}

async function timeDashboard(
  url: string,
  ids: ScaleIdentities,
): Promise<{ dashboard: PhaseResult["dashboard"]; explains: ExplainedStatement[] }> {
  const pool = getPool();
  const recent = (
    await pool.query<SampleOrder & { user_id: string }>(
      `SELECT id, public_id, trxid, idempotency_key, user_id FROM orders WHERE account_id = $1 ORDER BY id DESC LIMIT 1`,
      [ids.bigAccountId],
    )
  ).rows[0]!;
  const operations: { name: string; label: string; run: () => Promise<unknown> }[] = [
    {
      name: "overview",
      label: "overview (metrics 24h + 7d + backlog, as the page calls them)",
      run: () => {
        const now = new Date();
        return Promise.all([readOrderMetrics("24h", now), readOrderMetrics("7d", now), readOrderBacklog()]);
      },
    },
    {
      name: "margins",
      label: "overview's margins (24h + 7d, as the page calls them)",
      run: () => {
        const now = new Date();
        return Promise.all([
          readMargins(new Date(now.getTime() - 86_400_000), now),
          readMargins(new Date(now.getTime() - 7 * 86_400_000), now),
        ]);
      },
    },
    {
      name: "orders-list",
      label: "orders list, first page (line slugs + listOrders)",
      run: () => Promise.all([listGameLineSlugs(), listOrders({})]),
    },
    { name: "search-publicId", label: "order search: a public id", run: () => searchOrders(recent.public_id) },
    { name: "search-trxid", label: "order search: a trxid", run: () => searchOrders(recent.trxid) },
    { name: "search-id", label: "order search: a numeric id (#id)", run: () => searchOrders(`#${recent.id}`) },
    {
      name: "search-player",
      label: `order search: a player id (${recent.user_id})`,
      run: () => searchOrders(recent.user_id),
    },
    { name: "accounts", label: "accounts list, first page", run: () => listAccounts({}) },
  ];
  const dashboard: PhaseResult["dashboard"] = [];
  const explains: ExplainedStatement[] = [];
  // The bench runs no worker, whose periodic look folds the overview's count changes (the orders
  // the API phases placed) every few seconds: folded here as it would have.
  await foldOrderStatChanges();
  for (const op of operations) {
    await op.run();
    const runsMs: number[] = [];
    for (let i = 0; i < DASHBOARD_RUNS; i++) {
      const t = process.hrtime.bigint();
      await op.run();
      runsMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    dashboard.push({ name: op.name, label: op.label, runsMs });
    startCapture();
    await op.run();
    explains.push(...(await explainStatements(url, `dashboard ${op.name}`, stopCapture())));
    log(
      `  ${op.label.padEnd(60)} median ${runsMs.sort((a, b) => a - b)[2]!.toFixed(1)} ms, max ${Math.max(...runsMs).toFixed(1)} ms`,
    );
  }
  return { dashboard, explains };
}

/**
 * Waits (up to 2 minutes) until no other statement has run in the bench's database for a second:
 * a request between two of its queries leaves the database idle for a moment, so one idle sample
 * is not enough.
 */
async function drain(pool: pg.Pool): Promise<void> {
  const started = Date.now();
  let idleSamples = 0;
  while (Date.now() - started < 120_000) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
    );
    idleSamples = rows[0]!.n === 0 ? idleSamples + 1 : 0;
    if (idleSamples >= 5) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  log("  (the service was still busy after 2 minutes)");
}

const STATE_FILE = path.join(projectRoot, ".data", "scale-bench-state.json");

/**
 * SCALE_REUSE: new keys for reseller A's and B's existing keys (their plain keys lived only in the
 * run that issued them): the stored hash is replaced, so their orders stay theirs.
 */
async function rekey(
  pool: pg.Pool,
  statementMonth: ScaleIdentities["statementMonth"] | undefined,
): Promise<ScaleIdentities> {
  if (!statementMonth)
    throw new Error(`SCALE_REUSE: ${STATE_FILE} predates the two databases: run without SCALE_REUSE first`);
  const found = async (username: string, keyName: string) => {
    const { rows } = await pool.query<{ account_id: number; key_id: number }>(
      `SELECT a.id AS account_id, k.id AS key_id FROM accounts a JOIN api_keys k ON k.account_id = a.id AND k.name = $2 WHERE a.telegram_username = $1`,
      [username, keyName],
    );
    if (!rows[0])
      throw new Error(`SCALE_REUSE: no account ${username} with key ${keyName}: run without SCALE_REUSE first`);
    const generated = generateApiKey();
    await pool.query(`UPDATE api_keys SET key_hash = $2, prefix = $3 WHERE id = $1`, [
      rows[0].key_id,
      generated.hash,
      generated.prefix,
    ]);
    return { accountId: rows[0].account_id, keyId: rows[0].key_id, key: generated.key };
  };
  const a = await found("scale_reseller_a", "A1");
  const b = await found("scale_reseller_b", "B1");
  return {
    bigAccountId: a.accountId,
    bigKeyId: a.keyId,
    bigKey: a.key,
    smallAccountId: b.accountId,
    smallKeyId: b.keyId,
    smallKey: b.key,
    statementMonth,
  };
}

/** Points this process's lib pool and Prisma client (the seed's and the dashboard's functions) at `url`. */
async function useDatabase(url: string): Promise<void> {
  if (process.env.DATABASE_URL === url) return;
  await disconnectPrisma().catch(() => undefined);
  await closePool().catch(() => undefined);
  pointAtDatabase(url);
}

/** One size under measurement: its database, its service, its reseller identities and what it measured. */
interface Side {
  phase: string;
  url: string;
  pool: pg.Pool;
  service: BenchProcess;
  ids: ScaleIdentities;
  counts: { orders: number; ledger: number; accounts: number; big_orders: number; big_ledger: number };
  loadAverage: string;
  targets: (ScaleTarget & { key: string })[];
  offset: number;
  api: PhaseResult["api"];
  explains: ExplainedStatement[];
}

async function openSide(phase: string, url: string, service: BenchProcess, ids: ScaleIdentities): Promise<Side> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const counts = (
    await pool.query(
      `SELECT (SELECT count(*) FROM orders)::int AS orders, (SELECT count(*) FROM ledger_entries)::int AS ledger, (SELECT count(*) FROM accounts)::int AS accounts,
              (SELECT count(*) FROM orders WHERE account_id = $1)::int AS big_orders, (SELECT count(*) FROM ledger_entries WHERE account_id = $1)::int AS big_ledger`,
      [ids.bigAccountId],
    )
  ).rows[0];
  const loadAverage = os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(", ");
  log(`${phase}: ${counts.orders} orders, ${counts.ledger} ledger entries`);
  const targets = await phaseTargets(pool, ids, phase);
  return { phase, url, pool, service, ids, counts, loadAverage, targets, offset: 1, api: [], explains: [] };
}

/** A target's label without its parenthesised note, as the report names the operation. */
const operationName = (target: ScaleTarget) => target.label.replace(/ \(.*\)$/, "");

/** `work` on each side in turn, the side that goes first rotating with `round`. */
async function takeTurns(sides: Side[], round: number, work: (side: Side) => Promise<void>): Promise<void> {
  for (let i = 0; i < sides.length; i++) await work(sides[(round + i) % sides.length]!);
}

/** Every request kind on both sizes, the two services taking turns run by run. */
async function measureSides(sides: Side[]): Promise<void> {
  for (let t = 0; t < sides[0]!.targets.length; t++) {
    for (const side of sides) {
      await drain(side.pool);
      const target = side.targets[t]!;
      const statements = await captureRequest(side.service, target.key, target);
      side.explains.push(...(await explainStatements(side.url, operationName(target), statements)));
    }
    const one = new Map<Side, LatencyRun[]>(sides.map((side) => [side, []]));
    for (let round = 0; round < ONE_CONN_ROUNDS; round++) {
      await takeTurns(sides, round, async (side) => {
        await drain(side.pool);
        const target = side.targets[t]!;
        const run = await probeOneConnection(
          side.service.port!,
          target.key,
          target,
          side.offset,
          Math.ceil(ONE_CONN_REQUESTS / ONE_CONN_ROUNDS),
          ONE_CONN_SECONDS / ONE_CONN_ROUNDS,
        );
        side.offset += run.latencies.length + 10;
        one.get(side)!.push(run);
      });
    }
    const oneFigures = new Map(sides.map((side) => [side, summarise(one.get(side)!)]));
    // Long enough for several answers per connection even where one answer takes seconds (a
    // request still in flight when the window closes is not counted); the same for both sizes.
    const slowest = Math.max(...sides.map((side) => oneFigures.get(side)!.p50));
    const seconds = Math.min(30, Math.max(FIFTY_SECONDS, Math.ceil((3 * CONNECTIONS * slowest) / 10 / 1000)));
    const fifty = new Map<Side, LatencyRun[]>(sides.map((side) => [side, []]));
    for (let round = 0; round < FIFTY_ROUNDS; round++) {
      await takeTurns(sides, round, async (side) => {
        const target = side.targets[t]!;
        await drain(side.pool);
        fifty
          .get(side)!
          .push(
            await loadConnections(
              side.service.port!,
              target.key,
              target,
              side.offset,
              CONNECTIONS,
              Math.max(2, Math.ceil(seconds / FIFTY_ROUNDS)),
            ),
          );
        side.offset += 100_000;
        // Requests autocannon gave up on are still running in the service: let them finish, or
        // they would slow the next measurement.
        await drain(side.pool);
        if (target.name === "place") await side.pool.query("TRUNCATE graphile_worker._private_jobs");
      });
    }
    const line: string[] = [];
    for (const side of sides) {
      const target = side.targets[t]!;
      const figures = {
        name: target.name,
        label: target.label,
        one: oneFigures.get(side)!,
        fifty: summarise(fifty.get(side)!),
      };
      side.api.push(figures);
      line.push(
        `${side.phase}: 1 conn ${figures.one.p50.toFixed(1)}/${figures.one.p99.toFixed(1)} ms (${figures.one.requests}, non-2xx ${figures.one.non2xx}), ` +
          `${CONNECTIONS} conns ${figures.fifty.p50.toFixed(1)}/${figures.fifty.p99.toFixed(1)} ms ${figures.fifty.reqPerSecond.toFixed(0)}/s (non-2xx ${figures.fifty.non2xx}, errors ${figures.fifty.errors})`,
      );
    }
    log(`  ${operationName(sides[0]!.targets[t]!)}: p50/p99 ${line.join("; ")}`);
  }
}

async function closeSide(side: Side): Promise<PhaseResult> {
  await useDatabase(side.url);
  log(`dashboard, ${side.phase}`);
  const dash = await timeDashboard(side.url, side.ids);
  await side.pool.end();
  return {
    phase: side.phase,
    orders: side.counts.orders,
    ledgerEntries: side.counts.ledger,
    accounts: side.counts.accounts,
    bigAccountOrders: side.counts.big_orders,
    bigAccountLedger: side.counts.big_ledger,
    api: side.api,
    dashboard: dash.dashboard,
    explains: [...side.explains, ...dash.explains],
    loadAverage: side.loadAverage,
  };
}

async function main(): Promise<void> {
  const began = Date.now();
  process.env.BENCH_DATABASE ??= "scale_bench";
  const secret = () => crypto.randomBytes(24).toString("base64url");
  // SCALE_REUSE=1 measures the two databases a previous run left (no reset, no seed, no growth).
  // Their public ids were made with the APP_SECRET the previous run kept in STATE_FILE; reseller
  // A's and B's keys are issued anew (see rekey()).
  type State = {
    appSecret: string;
    database: string;
    statementMonth?: ScaleIdentities["statementMonth"];
    smallStatementMonth?: ScaleIdentities["statementMonth"];
  };
  const reuse = process.env.SCALE_REUSE === "1";
  const previous = reuse ? (JSON.parse(fs.readFileSync(STATE_FILE, "utf8")) as State) : undefined;
  const secrets = {
    APP_SECRET: previous?.appSecret ?? secret(),
    CODES_ENCRYPTION_KEY: secret(),
    NEXTAUTH_SECRET: secret(),
  };
  // The seed computes public ids with APP_SECRET, and lib/ in this process reads it too.
  Object.assign(process.env, secrets);
  const commandLine = [
    ...["DATABASE_URL", "REDIS_URL"]
      .filter((name) => process.env[name])
      .map((name) => `${name}=${process.env[name]!.replace(/\/\/[^@]*@/, "//***@")}`),
    ...Object.keys(process.env)
      .filter((name) => name.startsWith("BENCH_") || name.startsWith("SCALE_"))
      .map((name) => `${name}=${process.env[name]}`),
    "npm run bench:scale",
  ].join(" ");
  const db = await openBenchDatabase();
  const databaseName = new URL(db.url).pathname.slice(1);
  const smallUrl = await siblingDatabase(db.url, `${databaseName}_10k`);
  // Each service gets its own pool (PG_POOL_MAX, default 10, set in its env below); this process
  // needs a few connections only, on a server other benches may share.
  const servicePoolMax = process.env.PG_POOL_MAX;
  process.env.PG_POOL_MAX = "4";
  const notes: string[] = [
    "The per-key rate limits were raised for this run (every /history request has to come through reseller A's one key); the limiter itself still runs.",
    "Dashboard figures are its lib functions timed in the bench process through the same Prisma client and pool as the web process; the page's React render and the session check are not included.",
    `The 10k and the ${BIG_ORDERS >= 1_000_000 ? `${BIG_ORDERS / 1_000_000}M` : `${BIG_ORDERS / 1000}k`} databases are measured side by side, each by its own service: every measurement is ${ONE_CONN_ROUNDS} one-connection runs and ${FIFTY_ROUNDS} ${CONNECTIONS}-connection runs per size, the sizes taking turns run by run, so a slow spell of this shared machine falls on both.`,
  ];
  try {
    log(`databases: ${db.description}, and ${databaseName}_10k beside it`);
    if (previous && previous.database !== databaseName)
      throw new Error(
        `SCALE_REUSE: the state in ${STATE_FILE} is for database ${previous.database}, not ${databaseName}`,
      );
    const bigLabel = BIG_ORDERS >= 1_000_000 ? `${BIG_ORDERS / 1_000_000}M` : `${BIG_ORDERS / 1000}k`;
    let t = Date.now();
    let smallIds: ScaleIdentities;
    let bigIds: ScaleIdentities;
    let baseSeconds = 0;
    let growSeconds = 0;
    if (reuse) {
      await useDatabase(smallUrl);
      smallIds = await rekey(getPool(), previous?.smallStatementMonth);
      await useDatabase(db.url);
      bigIds = await rekey(getPool(), previous?.statementMonth);
      notes.push(`SCALE_REUSE: the databases the run before left, measured again`);
    } else {
      await useDatabase(smallUrl);
      await resetAndMigrate(smallUrl);
      smallIds = await seedScaleBase(smallUrl, secrets.APP_SECRET, log);
      await useDatabase(db.url);
      await resetAndMigrate(db.url);
      bigIds = await seedScaleBase(db.url, secrets.APP_SECRET, log);
      baseSeconds = (Date.now() - t) / 1000 / 2;
      const state: State = {
        database: databaseName,
        appSecret: secrets.APP_SECRET,
        statementMonth: bigIds.statementMonth,
        smallStatementMonth: smallIds.statementMonth,
      };
      fs.mkdirSync(path.dirname(STATE_FILE), { recursive: true });
      fs.writeFileSync(STATE_FILE, JSON.stringify(state), { mode: 0o600 });
      t = Date.now();
      log(`growing ${databaseName} to ${bigLabel} orders`);
      await growScale(db.url, secrets.APP_SECRET, bigIds, log);
      growSeconds = (Date.now() - t) / 1000;
      log(`grown in ${growSeconds.toFixed(0)} s`);
    }

    // Development: the sandbox stands in for a supplier, which production refuses (bench/run.ts says why).
    const serviceEnv = (url: string, tag: string): Record<string, string | undefined> => ({
      ...secrets,
      NODE_ENV: "development",
      DATABASE_URL: url,
      SERVE_DASHBOARD: "0",
      HOST: "127.0.0.1",
      PORT: "0",
      SUPPLIER: "sandbox",
      SANDBOX_LATENCY_MS: "0",
      RATE_LIMIT_PREFIX: `scale-${tag}-${Date.now().toString(36)}`,
      PG_POOL_MAX: servicePoolMax ?? "10",
      RATE_LIMIT_KEY_BURST: "1000000",
      RATE_LIMIT_KEY_PER_MINUTE: "100000000",
    });
    const startService = (name: string, url: string) =>
      startProcess({
        name,
        entry: "scripts/serve.ts",
        env: serviceEnv(url, name),
        nodeArgs: ["--import", "./bench/scale-capture.ts"],
        log,
      });

    const file = path.resolve(process.env.SCALE_RESULTS ?? path.join(projectRoot, "bench", "scale-results.md"));
    // The summary is committed; the plans and the raw figures of the latest run stay beside it, ignored by git.
    const plansFile = path.join(path.dirname(file), "scale-plans.md");
    const jsonFile = path.join(path.dirname(file), "scale-results.json");
    const sides = [
      await openSide("10k", smallUrl, await startService("service-10k", smallUrl), smallIds),
      await openSide(bigLabel, db.url, await startService(`service-${bigLabel}`, db.url), bigIds),
    ];
    if (DASHBOARD_ONLY) notes.push("SCALE_DASHBOARD_ONLY: the API's requests were not measured");
    else await measureSides(sides);
    for (const side of sides) await side.service.stop();
    const [small, big] = [await closeSide(sides[0]!), await closeSide(sides[1]!)];

    log("checking the books");
    const invariantProblems: string[] = [];
    for (const side of sides) {
      await useDatabase(side.url);
      invariantProblems.push(...(await checkScaleInvariants(getPool())).map((problem) => `${side.phase}: ${problem}`));
    }
    const report: ScaleReport = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}, ${(await getPool().query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v")).rows[0]!.v}, ${process.env.REDIS_URL ? "Redis over TCP" : "in-process rate-limit counters"}`,
      commandLine,
      seedSeconds: { base: baseSeconds, grow: growSeconds },
      invariantProblems,
      notes,
      phases: [small, big],
      totalSeconds: (Date.now() - began) / 1000,
    };
    const { summary, plans } = renderScaleReport(report);
    fs.writeFileSync(file, `${summary}\n`);
    fs.writeFileSync(plansFile, `${plans}\n`);
    fs.writeFileSync(jsonFile, JSON.stringify(report, null, 1));
    console.log(summary);
    log(
      `written to ${path.relative(process.cwd(), file)} (plans: ${path.basename(plansFile)}, figures: ${path.basename(jsonFile)})`,
    );
  } finally {
    await closeBench(db);
  }
}

runBench({ tag: "scale", title: "scale bench", log }, main);
