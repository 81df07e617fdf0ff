// Once per `npm test`: for each vitest worker a clean, migrated database (DATABASE_URL and databases
// named after it, or an embedded PostgreSQL kept apart from the development one) and the real web
// server on a free port over real HTTP, so files running at once never share rows or a server.
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgresProcess } from "../helpers/embedded-postgres-process";
import { applyMigrations } from "../../lib/db/migrate";
import { resetSchema } from "../../lib/db/reset-schema";
import { projectRoot } from "../../lib/config/env";
import { TEST_ENV } from "./test-env";
import { keepOutput, resetTestLogs, TEST_LOG_DIR } from "../helpers/process-logs";

// Embedded PostgreSQL runs in a child process: loading it here would install exit hooks that turn
// vitest's failing exit code into 0.
let embedded: Awaited<ReturnType<typeof startEmbeddedPostgresProcess>> | undefined;
let servers: ChildProcess[] = [];

/** A web process (scripts/serve.ts) on a free port; its output is kept in `logFile` (tests/helpers/process-logs.ts). */
export async function startServer(
  env: Record<string, string | undefined>,
): Promise<{ child: ChildProcess; baseUrl: string; logFile: string }> {
  const child = fork(path.join(projectRoot, "scripts", "serve.ts"), [], {
    env: { ...process.env, ...env, PORT: "0", HOST: "127.0.0.1" },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const logFile = keepOutput("web", child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) =>
      reject(new Error(`server exited with ${code} before listening:\n${fs.readFileSync(logFile, "utf8")}`)),
    );
    child.on("message", (message: { type?: string; port?: number }) => {
      if (message?.type === "listening" && message.port) resolve(message.port);
    });
  });
  return { child, baseUrl: `http://127.0.0.1:${port}`, logFile };
}

export default async function setup(project: TestProject) {
  resetTestLogs();
  console.log(`[tests] every process's output is kept in ${path.relative(projectRoot, TEST_LOG_DIR)}`);
  let databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    console.log(
      `[tests] using DATABASE_URL (${databaseUrl.replace(/\/\/[^@]*@/, "//***@")}); its public schema is reset, and so are those of the other workers' databases beside it`,
    );
  } else {
    console.log("[tests] DATABASE_URL is not set: using an embedded PostgreSQL under .data/test");
    embedded = await startEmbeddedPostgresProcess({
      dataDir: path.join(projectRoot, ".data", "test"),
      port: Number(process.env.TEST_EMBEDDED_PG_PORT ?? 54339),
      database: "topup_test",
    });
    databaseUrl = embedded.url;
  }
  if (process.env.REDIS_URL) console.log(`[tests] REDIS_URL is set: Redis tests run against ${process.env.REDIS_URL}`);
  else console.log("[tests] REDIS_URL is not set: Redis-specific tests will say they are skipped");

  // As many as the most files vitest.config.ts runs at once (TEST_WORKERS): VITEST_POOL_ID picks one.
  const workers = Math.max(1, ...project.vitest.projects.map((each) => each.config.maxWorkers ?? 1));
  const databaseUrls = await workerDatabases(databaseUrl, workers);
  console.log(
    `[tests] ${workers} files at a time (TEST_WORKERS), each worker on a database of its own: ${databaseUrls.map((url) => new URL(url).pathname.slice(1)).join(", ")}`,
  );
  const started = await Promise.all(databaseUrls.map((url) => startServer({ ...TEST_ENV, DATABASE_URL: url })));
  servers = started.map((one) => one.child);
  project.provide(
    "workers",
    started.map((one, i) => ({ databaseUrl: databaseUrls[i]!, baseUrl: one.baseUrl, serverLogFile: one.logFile })),
  );

  return async () => {
    await Promise.all(
      servers.map((server) => {
        server.kill("SIGTERM");
        return new Promise((resolve) => (server.exitCode !== null ? resolve(undefined) : server.once("exit", resolve)));
      }),
    );
    await embedded?.stop();
  };
}

/**
 * `count` clean, migrated databases: `base` itself, then `<base>_w2`, `<base>_w3` ... on the same
 * server, created when missing. Migrating one takes well under a second, so each is migrated.
 */
async function workerDatabases(base: string, count: number): Promise<string[]> {
  const name = decodeURIComponent(new URL(base).pathname.slice(1));
  const urls = [base];
  for (let worker = 2; worker <= count; worker++)
    urls.push(Object.assign(new URL(base), { pathname: `/${encodeURIComponent(`${name}_w${worker}`)}` }).toString());
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    const existing = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database`);
    for (const url of urls.slice(1)) {
      const database = decodeURIComponent(new URL(url).pathname.slice(1));
      if (!existing.rows.some((row) => row.datname === database))
        await admin.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`);
    }
  } finally {
    await admin.end();
  }
  for (const url of urls) {
    await resetSchema(url);
    await applyMigrations(url);
  }
  return urls;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** One per vitest worker, in VITEST_POOL_ID order: read them through tests/helpers/suite.ts. */
    workers: { databaseUrl: string; baseUrl: string; serverLogFile: string }[];
  }
}
