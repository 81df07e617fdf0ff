// The service as it runs at scale, all of it real and all of it the soak's own: PostgreSQL (the
// embedded cluster, in a data directory of the run's), Redis, two web processes (scripts/serve.ts)
// behind HAProxy, two workers (scripts/worker.ts), the bot by webhook in the web processes, and the
// local fakes for what lies outside: two h2h suppliers, webhook receivers and Telegram. Every part
// can be killed and started again on the same port, which is what the faults do.
import { fork, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { pointAtDatabase, projectRoot } from "@/lib/config/env";
import { MIN_PRODUCTION_SECRET_LENGTH } from "@/lib/config/secrets";
import { applyMigrations } from "@/lib/db/migrate";
import { startEmbeddedPostgresProcess, type EmbeddedPostgresProcess } from "@/lib/db/embedded-process";
import { startFakeH2hSupplier, type FakeH2hSupplier } from "../helpers/fake-h2h-supplier";
import { FakeTelegram } from "../helpers/fake-telegram";
import { findFreePort, isAlive } from "../helpers/processes";
import { startOwnRedis } from "../helpers/redis-server";
import { WebhookReceiver } from "../helpers/webhook-receiver";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A service process of the soak: started on a fixed port, so a restart comes back where it was. */
interface ServiceProcess {
  name: string;
  child?: ChildProcess;
  start(): Promise<void>;
  /** SIGKILL: a crash, not a shutdown. */
  kill(): Promise<void>;
  /** SIGTERM, as an operator stops it; resolves once it exited. */
  stop(): Promise<void>;
}

function serviceProcess(
  name: string,
  script: string,
  env: () => NodeJS.ProcessEnv,
  logDir: string,
  ready: string,
): ServiceProcess {
  const proc: ServiceProcess = {
    name,
    async start() {
      const child = fork(path.join(projectRoot, "scripts", script), [], {
        env: env(),
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      });
      proc.child = child;
      const log = fs.createWriteStream(path.join(logDir, `${name}.log`), { flags: "a" });
      let seen = "";
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${name} was not ready in 90 s:\n${seen.slice(-2000)}`)),
          90_000,
        );
        child.once("exit", (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`${name} exited (${signal ?? code}) before it was ready:\n${seen.slice(-2000)}`));
        });
        const onData = (chunk: Buffer) => {
          log.write(chunk);
          if (seen.length < 100_000) seen += chunk.toString();
          if (seen.includes(ready)) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout!.on("data", onData);
        child.stderr!.on("data", onData);
      });
    },
    async kill() {
      const child = proc.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      const child = proc.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(20_000).then(() => child.kill("SIGKILL"))]);
      await exited;
    },
  };
  return proc;
}

async function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function haproxyConfig(frontPort: number, webPorts: number[]): string {
  return [
    "global",
    "  maxconn 2000",
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 90s",
    "  timeout server 90s",
    // A request that could not reach a web process (it was killed) goes to the other one; a request
    // that did reach it is never sent twice: the client retries it, with its trxid.
    "  retries 3",
    "  option redispatch",
    "  retry-on conn-failure",
    "frontend api",
    `  bind 127.0.0.1:${frontPort}`,
    "  option forwardfor",
    "  default_backend web",
    "backend web",
    "  balance roundrobin",
    "  option httpchk GET /healthz",
    // Alive is answering at all: /healthz says 503 while the shared database is down, and taking
    // every instance out for that would swap the API's JSON 503 for the balancer's own page.
    "  http-check expect rstatus ^(200|503)$",
    "  timeout check 3s",
    ...webPorts.map((port, i) => `  server web${i} 127.0.0.1:${port} check inter 300 fall 2 rise 2`),
    "",
  ].join("\n");
}

export type Topology = Awaited<ReturnType<typeof startTopology>>;

export async function startTopology(runDir: string) {
  const logDir = path.join(runDir, "logs");
  fs.mkdirSync(logDir, { recursive: true });
  const dataDir = path.join(runDir, "pg");
  fs.mkdirSync(dataDir, { recursive: true });
  fs.chmodSync(runDir, 0o755);
  fs.chmodSync(dataDir, 0o755);

  const pgPort = await findFreePort();
  let database: EmbeddedPostgresProcess = await startEmbeddedPostgresProcess({
    dataDir,
    port: pgPort,
    database: "soak",
  });
  const databaseUrl = database.url;
  await applyMigrations(databaseUrl);
  const redis = await startOwnRedis();

  const suppliers: FakeH2hSupplier[] = [
    await startFakeH2hSupplier({ partnerId: "soak-a", secret: crypto.randomBytes(16).toString("hex") }),
    await startFakeH2hSupplier({ partnerId: "soak-b", secret: crypto.randomBytes(16).toString("hex") }),
  ];
  const receivers = [await WebhookReceiver.start(), await WebhookReceiver.start(), await WebhookReceiver.start()];
  const telegram = await FakeTelegram.start();

  const frontPort = await findFreePort();
  const webPorts = [await findFreePort(), await findFreePort()];
  const webhookSecret = crypto.randomBytes(24).toString("base64url");
  const secret = (letter: string) => letter.repeat(MIN_PRODUCTION_SECRET_LENGTH + 8);
  const serviceEnv = (extra: Record<string, string>) => (): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // Development mode for one reason alone: webhooks to receivers on 127.0.0.1
    // (WEBHOOKS_ALLOW_PRIVATE, which production refuses). Everything else is set as production sets
    // it: the three secrets, real (h2h) suppliers for every live pack, Redis for the limits.
    NODE_ENV: "development",
    APP_SECRET: secret("a"),
    CODES_ENCRYPTION_KEY: secret("k"),
    NEXTAUTH_SECRET: secret("n"),
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    RATE_LIMIT_PREFIX: "soak",
    RATE_LIMIT_TIMEOUT_MS: "1000",
    TRUSTED_PROXIES: "127.0.0.1",
    SERVE_DASHBOARD: "0",
    SUPPLIER: "h2h",
    H2H_BASE_URL: suppliers[0]!.baseUrl,
    H2H_PARTNER_ID: suppliers[0]!.partnerId,
    H2H_SECRET: suppliers[0]!.secret,
    H2H_TIMEOUT_MS: "2000",
    SUPPLIERS_ALLOW_PRIVATE: "1",
    WEBHOOKS_ALLOW_PRIVATE: "1",
    SUPPLIER_POLL_MS: "250",
    SUPPLIER_POLL_MAX_MS: "1000",
    SUPPLIER_DEADLINE_MS: "600000",
    WORKER_SWEEP_MS: "1000",
    WORKER_CONCURRENCY: "6",
    PG_CONNECT_TIMEOUT_MS: "1500",
    PG_POOL_MAX: "6",
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    TELEGRAM_WEBHOOK_SECRET: webhookSecret,
    LOG_LEVEL: "warn",
    LOG_FORMAT: "json",
    ...extra,
  });

  // The soak's own calls into lib/ (seeding its world, checking the books) see what the service sees.
  const shared = serviceEnv({})();
  for (const name of [
    "NODE_ENV",
    "APP_SECRET",
    "CODES_ENCRYPTION_KEY",
    "NEXTAUTH_SECRET",
    "SUPPLIERS_ALLOW_PRIVATE",
    "WEBHOOKS_ALLOW_PRIVATE",
  ])
    process.env[name] = shared[name];
  pointAtDatabase(databaseUrl);

  const webs = webPorts.map((port, i) =>
    serviceProcess(
      `web${i}`,
      "serve.ts",
      serviceEnv({ PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info" }),
      logDir,
      "listening on",
    ),
  );
  const workers = [0, 1].map((i) =>
    serviceProcess(`worker${i}`, "worker.ts", serviceEnv({ LOG_LEVEL: "info" }), logDir, "fulfilling orders"),
  );
  for (const proc of [...webs, ...workers]) await proc.start();

  const haproxyFile = path.join(runDir, "haproxy.cfg");
  fs.writeFileSync(haproxyFile, haproxyConfig(frontPort, webPorts));
  const haproxy = spawn("haproxy", ["-f", haproxyFile, "-db"], { stdio: ["ignore", "pipe", "pipe"] });
  const haproxyLog = fs.createWriteStream(path.join(logDir, "haproxy.log"));
  haproxy.stdout.pipe(haproxyLog);
  haproxy.stderr.pipe(haproxyLog);
  for (let tries = 0; !(await portAnswers(frontPort)); tries++) {
    if (tries > 100 || haproxy.exitCode !== null)
      throw new Error(`HAProxy did not start (is it installed? apt-get install haproxy)`);
    await sleep(100);
  }
  const baseUrl = `http://127.0.0.1:${frontPort}`;

  // The bot's webhook, registered by the real command through the load balancer.
  await new Promise<void>((resolve, reject) => {
    const child = fork(path.join(projectRoot, "scripts", "bot-webhook.ts"), [baseUrl], {
      env: serviceEnv({})(),
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    let output = "";
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`bot:webhook failed: ${output}`))));
  });

  /** The postmaster's pid, from its pid file. */
  const postmaster = () => Number(fs.readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);

  return {
    baseUrl,
    databaseUrl,
    redis,
    suppliers,
    receivers,
    telegram,
    webs,
    workers,
    runDir,
    /** PostgreSQL crashed: immediate shutdown (no checkpoint, crash recovery at the next start). */
    async crashPostgres() {
      const pid = postmaster();
      process.kill(pid, "SIGQUIT");
      while (isAlive(pid)) await sleep(50);
      process.kill(database.pid, "SIGKILL");
    },
    async startPostgres() {
      database = await startEmbeddedPostgresProcess({ dataDir, port: pgPort, database: "soak" });
    },
    /** A client of the soak's own on the database (its checks), closed by the caller. */
    pool: (max = 2) => {
      const pool = new pg.Pool({ connectionString: databaseUrl, max, connectionTimeoutMillis: 3000 });
      // An idle connection cut by a PostgreSQL fault is dropped from the pool; the next query opens another.
      pool.on("error", () => undefined);
      return pool;
    },
    /** Stops everything, the service processes first (as an operator would), and keeps the logs. */
    async stop(options: { beforeDatabase?: () => Promise<void> } = {}) {
      for (const proc of [...webs, ...workers]) await proc.stop().catch(() => undefined);
      haproxy.kill("SIGTERM");
      await options.beforeDatabase?.();
      for (const receiver of receivers) await receiver.close().catch(() => undefined);
      for (const supplier of suppliers) await supplier.close().catch(() => undefined);
      await telegram.close().catch(() => undefined);
      await redis.stop();
      await database.stop();
    },
  };
}
