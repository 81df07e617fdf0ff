// npm start: the whole service on one machine. Uses DATABASE_URL or starts the embedded
// PostgreSQL, migrates, seeds an empty database (the demo account and its key outside production
// only: lib/seed/seed-demo-data.ts, seedForEnvironment), then runs the web server, the worker and (with
// TELEGRAM_BOT_TOKEN) the bot as supervised child processes: one that crashes is restarted with
// backoff while the others keep serving; one that crashes again and again stops everything with a
// message saying so. A database outage is not a crash: the worker waits it out without exiting, and
// a child exiting with DEPENDENCY_DOWN_EXIT_CODE is restarted without counting toward giving up. Ctrl-C stops the web server, the worker and the bot first, the database last.
//
// Every child runs in a process group of its own, so a terminal's Ctrl-C reaches this process
// alone and the order of the shutdown is decided here. Children stop by themselves when this
// process disappears (their IPC channel closes).
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import fs from "node:fs";
import {
  assertProductionSecrets,
  childEnvironment,
  env,
  isProduction,
  projectRoot,
  pointAtDatabase,
} from "@/lib/config/env";
import { applyMigrations } from "@/lib/db/migrate";
import { closePool } from "@/lib/db/pool";
import { startEmbeddedPostgresProcess, type EmbeddedPostgresProcess } from "@/lib/db/embedded-process";
import { superviseProcess, type Supervisor } from "@/lib/process/supervise-process";
import { botConsoleHint } from "./bot-console-hint";
import { isDatabaseEmpty, readRememberedDemoKey, seedForEnvironment } from "@/lib/seed/seed-demo-data";
import { logger, nameProcess } from "@/lib/observability/logger";

// Its own lines are logs (JSON, or pretty at a terminal in development); the addresses and the demo
// key at the end are printed for the person who typed npm start.
nameProcess("start");
const logs = logger();
const log = (line: string) => logs.info(line);
const fail = (line: string) => logs.error(line);

const supervisors: Supervisor[] = [];
let database: EmbeddedPostgresProcess | undefined;
let shuttingDown = false;

async function shutdown(exitCode: number): Promise<never> {
  if (!shuttingDown) {
    shuttingDown = true;
    log("stopping...");
    // The database stays up until everything that uses it has let go.
    await Promise.all(supervisors.map((supervisor) => supervisor.stop()));
    if (supervisors.length > 0) log(`${supervisors.map((supervisor) => supervisor.name).join(", ")} stopped`);
    await closePool().catch(() => undefined);
    if (database) {
      await database.stop();
      log("embedded PostgreSQL stopped");
    }
    process.exit(exitCode);
  }
  return new Promise<never>(() => undefined);
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(0));

function forkChild(script: string, childEnv: NodeJS.ProcessEnv): ChildProcess {
  return fork(path.join(projectRoot, "scripts", script), [], {
    env: childEnv,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    detached: true,
  });
}

function supervise(name: string, start: () => ChildProcess, onStart?: (child: ChildProcess) => void): Supervisor {
  const supervisor = superviseProcess({
    name,
    start,
    onStart,
    // Its lines are about a child that stopped: worth a warning.
    log: (line) => logs.warn(line),
    onGiveUp: (reason) => {
      fail(`${reason}: stopping everything`);
      void shutdown(1);
    },
  });
  supervisors.push(supervisor);
  return supervisor;
}

async function main(): Promise<void> {
  // Resolved (and in development generated into DATA_DIR) before any child starts, so every
  // process reads the same secrets file; the seed below already encrypts codes with them.
  assertProductionSecrets();
  const config = env();

  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    logger("db").info(
      `DATABASE_URL is not set: using embedded PostgreSQL under ${config.dataDir} (port ${config.embeddedPgPort})`,
    );
    database = await startEmbeddedPostgresProcess({
      dataDir: config.dataDir,
      port: config.embeddedPgPort,
      database: "topup",
    });
    databaseUrl = database.url;
  }
  pointAtDatabase(databaseUrl);

  await applyMigrations(databaseUrl, { log: (line) => logger("migrate").info(line) });
  const production = isProduction(config);
  let demoApiKey: string | undefined;
  if (await isDatabaseEmpty()) {
    log(
      production
        ? "empty database: loading the catalog (production: no demo account, money or key; README: Production)"
        : "empty database: loading the demo catalog and account",
    );
    demoApiKey = (
      await seedForEnvironment({ nodeEnv: config.nodeEnv, dataDir: config.dataDir, demoApiKey: config.demoApiKey })
    ).demoApiKey;
  } else if (!production) {
    demoApiKey = await readRememberedDemoKey(config.dataDir);
  }
  await closePool();
  if (shuttingDown) return;

  const childEnv = childEnvironment({ DATABASE_URL: databaseUrl });
  // A restarted web process takes the port the first one got (PORT=0 picks a free one once).
  let webPort: number | undefined;
  const port = await new Promise<number>((resolve) => {
    supervise(
      "web",
      () => forkChild("serve.ts", webPort === undefined ? childEnv : { ...childEnv, PORT: String(webPort) }),
      (child) => {
        child.on("message", (message: { type?: string; port?: number }) => {
          if (message?.type !== "listening" || !message.port) return;
          if (webPort !== undefined) return log(`web is back on port ${message.port}`);
          webPort = message.port;
          resolve(message.port);
        });
        // It said why (port taken, bad configuration): retrying would only say it again.
        child.once("exit", () => {
          if (webPort === undefined && !shuttingDown) {
            fail("the web server did not start: stopping");
            void shutdown(1);
          }
        });
      },
    );
  });
  if (fs.existsSync(path.join(projectRoot, "scripts", "worker.ts")))
    supervise("worker", () => forkChild("worker.ts", childEnv));
  // In webhook mode the web process takes the bot's updates; nothing polls.
  if (config.telegramBotToken && !config.telegramWebhookSecret) supervise("bot", () => forkChild("bot.ts", childEnv));

  const base = `http://localhost:${port}`;
  console.log("");
  console.log(`  API:        ${base}   (health: ${base}/healthz, docs: ${base}/docs)`);
  console.log(`  Dashboard:  ${base}/admin`);
  // A key is printed in development only; production's keys are made and shown by the bot alone.
  if (production) console.log("  Accounts:   through the bot (/start, then an admin's /credit); keys with /newkey");
  else {
    console.log(`  Demo key:   ${demoApiKey ?? "(not known here: create one with the bot's /newkey)"}`);
    if (demoApiKey) console.log(`  Try:        curl -H "X-API-Key: ${demoApiKey}" ${base}/balance`);
    for (const line of botConsoleHint()) console.log(line);
  }
  if (config.telegramBotToken && config.telegramWebhookSecret) {
    console.log(
      `  Bot:        webhook at ${base}/api/telegram/webhook (register: npm run bot:webhook -- <public-url>)`,
    );
  }
  console.log("  Press Ctrl-C to stop.");
  console.log("");
}

main().catch(async (error) => {
  fail(error instanceof Error ? error.message : String(error));
  await shutdown(1);
});
