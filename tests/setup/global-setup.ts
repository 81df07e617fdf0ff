// Once per `npm test`: a clean, migrated database (DATABASE_URL, or an embedded PostgreSQL kept
// apart from the development one) and the real web server on a free port, over real HTTP.
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
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
let server: ChildProcess | undefined;

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
      `[tests] using DATABASE_URL (${databaseUrl.replace(/\/\/[^@]*@/, "//***@")}); its public schema is reset`,
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

  await resetSchema(databaseUrl);
  await applyMigrations(databaseUrl);

  const started = await startServer({ ...TEST_ENV, DATABASE_URL: databaseUrl });
  server = started.child;
  project.provide("databaseUrl", databaseUrl);
  project.provide("baseUrl", started.baseUrl);
  project.provide("serverLogFile", started.logFile);

  return async () => {
    server?.kill("SIGTERM");
    await new Promise((resolve) => (server?.exitCode !== null ? resolve(undefined) : server.once("exit", resolve)));
    await embedded?.stop();
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    baseUrl: string;
    /** Where the suite's web server writes its output (its request lines among it). */
    serverLogFile: string;
  }
}
