// npm start: the whole service on one machine. Uses DATABASE_URL or starts the embedded
// PostgreSQL, migrates, seeds an empty database, then runs the web server, the worker and (with
// TELEGRAM_BOT_TOKEN) the bot as child processes. Ctrl-C stops all of them, database included.
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import fs from "node:fs";
import { env, projectRoot } from "@/lib/config/env";
import { applyMigrations } from "@/lib/db/migrate";
import { closePool } from "@/lib/db/pool";
import { isDatabaseEmpty, readRememberedDemoKey, seedDemoData } from "@/lib/seed/seed-demo-data";
import { resolveDatabase } from "./database";

const config = env();
const children: ChildProcess[] = [];
let shuttingDown = false;

function startChild(name: string, script: string, childEnv: NodeJS.ProcessEnv): ChildProcess {
  const child = fork(path.join(projectRoot, "scripts", script), [], {
    env: childEnv,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  child.on("exit", (code, signal) => {
    if (!shuttingDown) {
      console.error(`[start] ${name} exited (${signal ?? code}); stopping everything`);
      void shutdown(1);
    }
  });
  children.push(child);
  return child;
}

let stopDatabase: () => Promise<void> = async () => undefined;

async function shutdown(exitCode: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log("[start] stopping...");
  await Promise.all(
    children.map(
      (child) =>
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
  await stopDatabase().catch((error) => console.error("[start] stopping PostgreSQL failed:", error));
  process.exit(exitCode);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

const database = await resolveDatabase();
if (database.embedded) stopDatabase = database.embedded.stop;
process.env.DATABASE_URL = database.url;

await applyMigrations(database.url, { log: (line) => console.log(`[migrate] ${line}`) });
let demoApiKey: string | undefined;
if (await isDatabaseEmpty()) {
  console.log("[start] empty database: loading the demo catalog and account");
  demoApiKey = (await seedDemoData({ dataDir: config.dataDir, demoApiKey: config.demoApiKey })).demoApiKey;
} else {
  demoApiKey = await readRememberedDemoKey(config.dataDir);
}
await closePool();

const childEnv = { ...process.env, DATABASE_URL: database.url };
const web = startChild("web", "serve.ts", childEnv);
const port = await new Promise<number>((resolve) => {
  web.on("message", (message: { type?: string; port?: number }) => {
    if (message?.type === "listening" && message.port) resolve(message.port);
  });
});
if (fs.existsSync(path.join(projectRoot, "scripts", "worker.ts"))) startChild("worker", "worker.ts", childEnv);
if (config.telegramBotToken && fs.existsSync(path.join(projectRoot, "scripts", "bot.ts"))) {
  startChild("bot", "bot.ts", childEnv);
}

const base = `http://localhost:${port}`;
console.log("");
console.log(`  API:        ${base}   (health: ${base}/healthz, docs: ${base}/docs)`);
console.log(`  Dashboard:  ${base}/admin`);
console.log(`  Demo key:   ${demoApiKey ?? "(not known here: create one with the bot's /newkey)"}`);
if (demoApiKey) console.log(`  Try:        curl -H "X-API-Key: ${demoApiKey}" ${base}/balance`);
console.log("  Press Ctrl-C to stop.");
console.log("");
