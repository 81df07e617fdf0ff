// npm run dev: the development loop. Next's dev server with hot reload serves everything on one
// port (the API through the route files under app/api, the dashboard, the docs), beside one
// worker (and the bot when TELEGRAM_BOT_TOKEN is set). Uses DATABASE_URL or the embedded
// PostgreSQL, migrated and seeded as `npm start` does. PORT=0 picks a free port, printed once ready.
// Ctrl-C stops everything it started, the database last.
import { fork, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { childEnvironment, env, isProduction, projectRoot, pointAtDatabase } from "@/lib/config/env";
import { applyMigrations } from "@/lib/db/migrate";
import { closePool } from "@/lib/db/pool";
import { isDatabaseEmpty, readRememberedDemoKey, seedForEnvironment } from "@/lib/seed/seed-demo-data";
import { botConsoleHint } from "./bot-console-hint";
import { resolveDatabase } from "./database";
import { logger, nameProcess } from "@/lib/observability/logger";

nameProcess("dev");
const log = logger();

const config = env();
const children: { name: string; child: ChildProcess }[] = [];
let stopDatabase: () => Promise<void> = async () => undefined;
let shuttingDown = false;

function watch(name: string, child: ChildProcess): ChildProcess {
  child.on("exit", (code, signal) => {
    if (!shuttingDown) {
      log.error(`${name} exited (${signal ?? code}); stopping everything`);
      void shutdown(1);
    }
  });
  children.push({ name, child });
  return child;
}

async function shutdown(exitCode: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  log.info("stopping...");
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const killTimer = setTimeout(() => child.kill("SIGKILL"), 8000);
          child.once("exit", () => {
            clearTimeout(killTimer);
            resolve();
          });
          child.kill("SIGTERM");
        }),
    ),
  );
  await closePool().catch(() => undefined);
  await stopDatabase().catch((error) => log.error("stopping PostgreSQL failed", { err: error }));
  process.exit(exitCode);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

const database = await resolveDatabase();
if (database.embedded) stopDatabase = database.embedded.stop;
pointAtDatabase(database.url);
await applyMigrations(database.url, { log: (line) => logger("migrate").info(line) });
// As npm start: no demo account, money or key if someone runs this with NODE_ENV=production.
const demoApiKey = (await isDatabaseEmpty())
  ? (await seedForEnvironment({ nodeEnv: config.nodeEnv, dataDir: config.dataDir, demoApiKey: config.demoApiKey }))
      .demoApiKey
  : isProduction(config)
    ? undefined
    : await readRememberedDemoKey(config.dataDir);
await closePool();

const childEnv = childEnvironment({ DATABASE_URL: database.url, NEXT_TELEMETRY_DISABLED: "1" });
const nextBin = path.join(projectRoot, "node_modules", "next", "dist", "bin", "next");
const web = watch(
  "next dev",
  spawn(process.execPath, [nextBin, "dev", "-H", config.host, "-p", String(config.port)], {
    cwd: projectRoot,
    env: childEnv,
    stdio: ["ignore", "pipe", "inherit"],
  }),
);

// Next prints the port it listens on ("- Local: http://<host>:<port>"), which PORT=0 leaves to
// the kernel, then "Ready in".
const port = await new Promise<number>((resolve) => {
  let seen = "";
  web.stdout!.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    seen += chunk.toString();
    const local = /Local:\s+https?:\/\/\S*:(\d+)/.exec(seen);
    if (local && seen.includes("Ready in")) resolve(Number(local[1]));
  });
});

const tsxScript = (script: string) =>
  fork(path.join(projectRoot, "scripts", script), [], {
    env: childEnv,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
watch("worker", tsxScript("worker.ts"));
if (config.telegramBotToken) watch("bot", tsxScript("bot.ts"));

const base = `http://localhost:${port}`;
// The dev server loads next.config.ts (which installs the peer-address stamp) on its first request,
// after reading that request's headers: this one goes first, so no caller of the API meets a 503.
await fetch(`${base}/healthz`).catch(() => undefined);
console.log("");
console.log(`  Dev server: ${base}   (API, docs: ${base}/docs; pages and route files reload on save)`);
console.log(`  Dashboard:  ${base}/admin`);
console.log(`  Demo key:   ${demoApiKey ?? "(not known here: create one with the bot's /newkey)"}`);
if (demoApiKey) console.log(`  Try:        curl -H "X-API-Key: ${demoApiKey}" ${base}/balance`);
for (const line of botConsoleHint()) console.log(line);
console.log("  Press Ctrl-C to stop.");
console.log("");
