// npm run bench:scale: does the API stay flat when one reseller has a million orders?
//
//   1. the bench's own database (BENCH_DATABASE, default "scale_bench", on the DATABASE_URL server,
//      as bench/database.ts finds it): reset, migrated, seeded to the 10k baseline (scale-seed.ts)
//   2. the service as production runs it (scripts/serve.ts, lean host, auth and the rate limiter
//      on), with scale-capture.ts loaded so the bench can record the SQL of one request
//   3. per request kind: its SQL captured and EXPLAINed, then one connection, then 50 (scale-load.ts);
//      the dashboard's lib functions timed in this process (no Next build, no admin login: the
//      pages' own render work on top is not measured) and their SQL EXPLAINed
//   4. grown to 1,000,000 orders and 3,000,000 ledger entries, the service restarted (fresh plan
//      caches), step 3 again
//   5. the books checked in SQL, the report written (stdout and bench/scale-results.md)
//
// The per-key limits are raised for the service (RATE_LIMIT_KEY_BURST / _PER_MINUTE): every
// /history request must come through reseller A's one key, which the real limits would stop at
// 10/s. The limiter still runs (same code, same Redis trips); only its quotas are bigger.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { projectRoot } from "@/lib/config/env";
import { getPool } from "@/lib/db/pool";
import { readOrderMetrics } from "@/lib/dashboard/read-order-metrics";
import { readOrderBacklog } from "@/lib/dashboard/read-order-backlog";
import { listOrders } from "@/lib/dashboard/list-orders";
import { listGameLineSlugs } from "@/lib/dashboard/list-game-line-slugs";
import { searchOrders } from "@/lib/dashboard/search-orders";
import { listAccounts } from "@/lib/dashboard/list-accounts";
import { generateApiKey } from "@/lib/auth/api-key-format";
import { closeBench, openBenchDatabase, resetAndMigrate } from "./database";
import { PLACE_PID, PLACE_USER_ID } from "./load";
import { runBench, startProcess, type BenchProcess } from "./processes";
import { startCapture, stopCapture, type CapturedStatement } from "./scale-capture";
import { explainStatements, type ExplainedStatement } from "./scale-explain";
import { loadConnections, probeOneConnection, sendOnce, type ScaleTarget } from "./scale-load";
import { renderScaleReport, type PhaseResult, type ScaleReport } from "./scale-report";
import { BIG_ORDERS, checkScaleInvariants, growScale, seedScaleBase, type ScaleIdentities } from "./scale-seed";

const log = (line: string) => console.log(`[scale] ${new Date().toISOString().slice(11, 19)} ${line}`);

// p99 at one connection is the 10th slowest of 1,000 answers. Of 200 it was the 2nd slowest, which
// one pause of the machine decides: two runs of 2026-11-25 missed 1.5x on different rows each time,
// with the same p50 and the same buffers read at 10k and 1M (bench/RESULTS.md).
const ONE_CONN_REQUESTS = Number(process.env.SCALE_ONE_CONN_REQUESTS ?? 1000);
const ONE_CONN_SECONDS = Number(process.env.SCALE_ONE_CONN_S ?? 6);
const FIFTY_SECONDS = Number(process.env.SCALE_FIFTY_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DASHBOARD_RUNS = 5;

interface SampleOrder {
  id: number;
  public_id: string;
  trxid: string;
  idempotency_key: string;
}

async function captureRequest(service: BenchProcess, key: string, target: ScaleTarget): Promise<CapturedStatement[]> {
  const reply = (type: string) =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} from the service`)), 30_000);
      const onMessage = (message: { type?: string }) => {
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

async function phaseTargets(ids: ScaleIdentities, phase: string): Promise<{ targets: (ScaleTarget & { key: string })[]; notes: string[] }> {
  const pool = getPool();
  const count = async (sql: string, values: unknown[]) => Number((await pool.query<{ n: string }>(sql, values)).rows[0].n);
  const historyTotal = await count(`SELECT count(*) AS n FROM orders WHERE account_id = $1 AND api_key_id = $2`, [ids.bigAccountId, ids.bigKeyId]);
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
  const pick = (i: number) => sample[i % sample.length];
  const notes: string[] = [];
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
    { key: A, name: "history-last", label: `GET /history, last page (${phase}: page ${lastHistoryPage})`, request: fixed(`/history?page=${Math.min(lastHistoryPage, 100_000)}`) },
    { key: A, name: "ledger-p1", label: "GET /ledger (first page)", request: fixed("/ledger") },
    { key: A, name: "ledger-last", label: `GET /ledger, last page (${phase}: page ${lastLedgerPage})`, request: fixed(`/ledger?page=${Math.min(lastLedgerPage, 100_000)}`) },
    { key: A, name: "ledger-csv", label: "GET /ledger?format=csv, A's first month (its first 10,000 orders)", request: fixed(statementPath) },
    { key: A, name: "order-publicId", label: "GET /orders/:id by public id", request: (i) => ({ method: "GET", path: `/orders/${pick(i).public_id}` }) },
    { key: A, name: "order-trxid", label: "GET /orders/:id by trxid", request: (i) => ({ method: "GET", path: `/orders/${encodeURIComponent(pick(i).trxid)}` }) },
    { key: A, name: "order-idempotencyKey", label: "GET /orders/:id by idempotency key", request: (i) => ({ method: "GET", path: `/orders/${encodeURIComponent(pick(i).idempotency_key)}` }) },
    { key: A, name: "order-id", label: "GET /orders/:id by numeric id", request: (i) => ({ method: "GET", path: `/orders/${pick(i).id}` }) },
    {
      key: A,
      name: "place",
      label: "POST /orders (reseller A's wallet)",
      request: (i) => ({ method: "POST", path: "/orders", body: JSON.stringify({ pid: PLACE_PID, trxid: `scale-${phase}-${crypto.randomUUID()}-${i}`, userId: PLACE_USER_ID }) }),
    },
    { key: B, name: "b-history-p1", label: "reseller B (200 orders): GET /history?page=1", request: fixed("/history?page=1") },
    { key: B, name: "b-ledger-p1", label: "reseller B (200 orders): GET /ledger", request: fixed("/ledger") },
  ];
  return { targets, notes };
}

async function timeDashboard(url: string, ids: ScaleIdentities): Promise<{ dashboard: PhaseResult["dashboard"]; explains: ExplainedStatement[] }> {
  const pool = getPool();
  const recent = (await pool.query<SampleOrder & { user_id: string }>(`SELECT id, public_id, trxid, idempotency_key, user_id FROM orders WHERE account_id = $1 ORDER BY id DESC LIMIT 1`, [ids.bigAccountId])).rows[0];
  const operations: { name: string; label: string; run: () => Promise<unknown> }[] = [
    {
      name: "overview",
      label: "overview (metrics 24h + 7d + backlog, as the page calls them)",
      run: () => { const now = new Date(); return Promise.all([readOrderMetrics("24h", now), readOrderMetrics("7d", now), readOrderBacklog()]); },
    },
    { name: "orders-list", label: "orders list, first page (line slugs + listOrders)", run: () => Promise.all([listGameLineSlugs(), listOrders({})]) },
    { name: "search-publicId", label: "order search: a public id", run: () => searchOrders(recent.public_id) },
    { name: "search-trxid", label: "order search: a trxid", run: () => searchOrders(recent.trxid) },
    { name: "search-id", label: "order search: a numeric id (#id)", run: () => searchOrders(`#${recent.id}`) },
    { name: "search-player", label: `order search: a player id (${recent.user_id})`, run: () => searchOrders(recent.user_id) },
    { name: "accounts", label: "accounts list, first page", run: () => listAccounts({}) },
  ];
  const dashboard: PhaseResult["dashboard"] = [];
  const explains: ExplainedStatement[] = [];
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
    log(`  ${op.label.padEnd(60)} median ${runsMs.sort((a, b) => a - b)[2].toFixed(1)} ms, max ${Math.max(...runsMs).toFixed(1)} ms`);
  }
  return { dashboard, explains };
}

/**
 * Waits (up to 2 minutes) until no other statement has run in the bench's database for a second:
 * a request between two of its queries leaves the database idle for a moment, so one idle sample
 * is not enough.
 */
async function drain(pool: ReturnType<typeof getPool>): Promise<void> {
  const started = Date.now();
  let idleSamples = 0;
  while (Date.now() - started < 120_000) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
    );
    idleSamples = rows[0].n === 0 ? idleSamples + 1 : 0;
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
async function rekey(statementMonth: ScaleIdentities["statementMonth"] | undefined): Promise<ScaleIdentities> {
  if (!statementMonth) throw new Error(`SCALE_REUSE: ${STATE_FILE} predates the statement month: run without SCALE_REUSE first`);
  const pool = getPool();
  const found = async (username: string, keyName: string) => {
    const { rows } = await pool.query<{ account_id: number; key_id: number }>(
      `SELECT a.id AS account_id, k.id AS key_id FROM accounts a JOIN api_keys k ON k.account_id = a.id AND k.name = $2 WHERE a.telegram_username = $1`,
      [username, keyName],
    );
    if (!rows[0]) throw new Error(`SCALE_REUSE: no account ${username} with key ${keyName}: run without SCALE_REUSE first`);
    const generated = generateApiKey();
    await pool.query(`UPDATE api_keys SET key_hash = $2, prefix = $3 WHERE id = $1`, [rows[0].key_id, generated.hash, generated.prefix]);
    return { accountId: rows[0].account_id, keyId: rows[0].key_id, key: generated.key };
  };
  const a = await found("scale_reseller_a", "A1");
  const b = await found("scale_reseller_b", "B1");
  return { bigAccountId: a.accountId, bigKeyId: a.keyId, bigKey: a.key, smallAccountId: b.accountId, smallKeyId: b.keyId, smallKey: b.key, statementMonth };
}

async function measurePhase(phase: string, url: string, service: BenchProcess, ids: ScaleIdentities, notes: string[]): Promise<PhaseResult> {
  const pool = getPool();
  const counts = (
    await pool.query(
      `SELECT (SELECT count(*) FROM orders)::int AS orders, (SELECT count(*) FROM ledger_entries)::int AS ledger, (SELECT count(*) FROM accounts)::int AS accounts,
              (SELECT count(*) FROM orders WHERE account_id = $1)::int AS big_orders, (SELECT count(*) FROM ledger_entries WHERE account_id = $1)::int AS big_ledger`,
      [ids.bigAccountId],
    )
  ).rows[0];
  const loadAverage = os.loadavg().map((n) => n.toFixed(1)).join(", ");
  log(`phase ${phase}: ${counts.orders} orders, ${counts.ledger} ledger entries; load average ${loadAverage}`);
  const { targets, notes: targetNotes } = await phaseTargets(ids, phase);
  for (const note of targetNotes) if (!notes.includes(note)) notes.push(note);

  const api: PhaseResult["api"] = [];
  const explains: ExplainedStatement[] = [];
  let offset = 1;
  for (const target of targets) {
    await drain(pool);
    const statements = await captureRequest(service, target.key, target);
    explains.push(...(await explainStatements(url, target.label.replace(/ \(.*\)$/, ""), statements)));
    const one = await probeOneConnection(service.port!, target.key, target, offset, ONE_CONN_REQUESTS, ONE_CONN_SECONDS);
    offset += one.requests + 10;
    await drain(pool);
    // Long enough for several answers per connection even where one answer takes seconds
    // (a request still in flight when the window closes is not counted).
    const seconds = Math.min(30, Math.max(FIFTY_SECONDS, Math.ceil((3 * CONNECTIONS * one.p50) / 10 / 1000)));
    const fifty = await loadConnections(service.port!, target.key, target, offset, CONNECTIONS, seconds);
    offset += 100_000;
    // Requests autocannon gave up on are still running in the service: let them finish, or they
    // would slow the next measurement.
    await drain(pool);
    if (target.name === "place") await pool.query("TRUNCATE graphile_worker._private_jobs");
    api.push({ name: target.name, label: target.label, one, fifty });
    log(
      `  ${target.label.padEnd(56)} 1 conn p50 ${one.p50.toFixed(1)} p99 ${one.p99.toFixed(1)} ms (${one.requests}, non-2xx ${one.non2xx}); ` +
        `${CONNECTIONS} conns p50 ${fifty.p50.toFixed(1)} p99 ${fifty.p99.toFixed(1)} ms ${fifty.reqPerSecond.toFixed(0)}/s (non-2xx ${fifty.non2xx}, errors ${fifty.errors})`,
    );
  }
  const dash = await timeDashboard(url, ids);
  return {
    phase,
    orders: counts.orders,
    ledgerEntries: counts.ledger,
    accounts: counts.accounts,
    bigAccountOrders: counts.big_orders,
    bigAccountLedger: counts.big_ledger,
    api,
    dashboard: dash.dashboard,
    explains: [...explains, ...dash.explains],
    loadAverage,
  };
}

async function main(): Promise<void> {
  const began = Date.now();
  process.env.BENCH_DATABASE ??= "scale_bench";
  const secret = () => crypto.randomBytes(24).toString("base64url");
  // SCALE_REUSE=1 measures the database a previous run grew (no reset, no seed, no 10k phase: that
  // one is read from the previous run's JSON). Its public ids were made with the APP_SECRET the
  // previous run kept in STATE_FILE; reseller A's and B's keys are issued anew (see rekey()).
  const reuse = process.env.SCALE_REUSE === "1";
  const previous = reuse ? (JSON.parse(fs.readFileSync(STATE_FILE, "utf8")) as { appSecret: string; database: string; statementMonth?: ScaleIdentities["statementMonth"] }) : undefined;
  const secrets = { APP_SECRET: previous?.appSecret ?? secret(), CODES_ENCRYPTION_KEY: secret(), NEXTAUTH_SECRET: secret() };
  // The seed computes public ids with APP_SECRET, and lib/ in this process reads it too.
  Object.assign(process.env, secrets);
  const commandLine = [
    ...["DATABASE_URL", "REDIS_URL"].filter((name) => process.env[name]).map((name) => `${name}=${process.env[name]!.replace(/\/\/[^@]*@/, "//***@")}`),
    ...Object.keys(process.env).filter((name) => name.startsWith("BENCH_") || name.startsWith("SCALE_")).map((name) => `${name}=${process.env[name]}`),
    "npm run bench:scale",
  ].join(" ");
  const db = await openBenchDatabase();
  // The service gets its own pool (PG_POOL_MAX, default 10, set in its env below); this process
  // needs a few connections only, on a server other benches may share.
  const servicePoolMax = process.env.PG_POOL_MAX;
  process.env.PG_POOL_MAX = "4";
  process.env.DATABASE_URL = db.url;
  const notes: string[] = [
    "The per-key rate limits were raised for this run (every /history request has to come through reseller A's one key); the limiter itself still runs.",
    "Dashboard figures are its lib functions timed in the bench process through the same Prisma client and pool as the web process; the page's React render and the session check are not included.",
  ];
  try {
    log(`database: ${db.description}`);
    const databaseName = new URL(db.url).pathname.slice(1);
    if (previous && previous.database !== databaseName) throw new Error(`SCALE_REUSE: the state in ${STATE_FILE} is for database ${previous.database}, not ${databaseName}`);
    let t = Date.now();
    let ids: ScaleIdentities;
    if (reuse) {
      ids = await rekey(previous?.statementMonth);
    } else {
      await resetAndMigrate(db.url);
      ids = await seedScaleBase(db.url, secrets.APP_SECRET, log);
      fs.mkdirSync(path.dirname(STATE_FILE), { recursive: true });
      fs.writeFileSync(STATE_FILE, JSON.stringify({ database: databaseName, appSecret: secrets.APP_SECRET, statementMonth: ids.statementMonth }), { mode: 0o600 });
    }
    const baseSeconds = (Date.now() - t) / 1000;

    const env: Record<string, string | undefined> = {
      ...secrets,
      NODE_ENV: "production",
      DATABASE_URL: db.url,
      SERVE_DASHBOARD: "0",
      HOST: "127.0.0.1",
      PORT: "0",
      SUPPLIER: "sandbox",
      SANDBOX_LATENCY_MS: "0",
      RATE_LIMIT_PREFIX: `scale-${Date.now().toString(36)}`,
      PG_POOL_MAX: servicePoolMax ?? "10",
      RATE_LIMIT_KEY_BURST: "1000000",
      RATE_LIMIT_KEY_PER_MINUTE: "100000000",
    };
    const startService = () => startProcess({ name: "service", entry: "scripts/serve.ts", env, nodeArgs: ["--import", "./bench/scale-capture.ts"], log });

    const file = path.resolve(process.env.SCALE_RESULTS ?? path.join(projectRoot, "bench", "scale-results.md"));
    const jsonFile = file.replace(/\.md$/, ".json");
    let small: PhaseResult;
    let growSeconds = 0;
    const bigLabel = BIG_ORDERS >= 1_000_000 ? `${BIG_ORDERS / 1_000_000}M` : `${BIG_ORDERS / 1000}k`;
    if (reuse) {
      const earlier = JSON.parse(fs.readFileSync(jsonFile, "utf8")) as ScaleReport;
      small = earlier.phases[0];
      notes.push(`SCALE_REUSE: the ${small.phase} phase is that of the run of ${earlier.date} (same database before it grew); the ${bigLabel} phase was measured again on the grown database`);
    } else {
      const service = await startService();
      small = await measurePhase("10k", db.url, service, ids, notes);
      await service.stop();
      t = Date.now();
      log(`growing to ${bigLabel} orders`);
      await growScale(db.url, secrets.APP_SECRET, ids, log);
      growSeconds = (Date.now() - t) / 1000;
      log(`grown in ${growSeconds.toFixed(0)} s`);
    }

    const service = await startService();
    const big = await measurePhase(bigLabel, db.url, service, ids, notes);
    await service.stop();

    log("checking the books");
    const invariantProblems = await checkScaleInvariants(getPool());
    const report: ScaleReport = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}, ${(await getPool().query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v")).rows[0].v}, ${process.env.REDIS_URL ? "Redis over TCP" : "in-process rate-limit counters"}`,
      commandLine,
      seedSeconds: { base: baseSeconds, grow: growSeconds },
      invariantProblems,
      notes,
      phases: [small, big],
      totalSeconds: (Date.now() - began) / 1000,
    };
    const text = renderScaleReport(report);
    fs.writeFileSync(file, `${text}\n`);
    fs.writeFileSync(jsonFile, JSON.stringify(report, null, 1));
    console.log(text.split("\n## Plans at")[0]);
    log(`written to ${path.relative(process.cwd(), file)} (and .json)`);
  } finally {
    await closeBench(db);
  }
}

runBench({ tag: "scale", title: "scale bench", log }, main);
