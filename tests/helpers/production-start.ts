// `npm start` as an operator runs it in production: scripts/start.ts with NODE_ENV=production, on an
// empty database of its own (next to the suite's, on the same server), with only the environment
// given here, so nothing leaks in from the test process.
import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { projectRoot } from "@/lib/config/env";
import { MIN_PRODUCTION_SECRET_LENGTH } from "@/lib/config/secrets";
import { keepOutput } from "./process-logs";
import { suiteDatabaseUrl } from "./suite";

/** Runs `fn` with a client on the database at `url`. */
export async function onDatabase<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function databaseUrlNamed(name: string): string {
  const url = new URL(suiteDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** A new empty database on the suite's server; `drop()` removes it. */
export async function createEmptyDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = databaseUrlNamed("postgres");
  await onDatabase(server, async (client) => {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name}`);
  });
  return {
    url: databaseUrlNamed(name),
    drop: async () => {
      await onDatabase(server, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/**
 * A production environment: the three secrets at their minimum length and verify and redeem at an
 * h2h supplier (without which production refuses to start); `extra` adds or overrides.
 */
export function productionEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    SERVE_DASHBOARD: "0",
    APP_SECRET: "a".repeat(MIN_PRODUCTION_SECRET_LENGTH),
    CODES_ENCRYPTION_KEY: "k".repeat(MIN_PRODUCTION_SECRET_LENGTH),
    NEXTAUTH_SECRET: "n".repeat(MIN_PRODUCTION_SECRET_LENGTH),
    SUPPLIER: "h2h",
    H2H_BASE_URL: "http://127.0.0.1:9",
    H2H_PARTNER_ID: "partner",
    H2H_SECRET: "secret",
    ...extra,
  } as unknown as NodeJS.ProcessEnv;
}

export interface RunningService {
  /** The API's base URL, on 127.0.0.1. */
  base: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts scripts/start.ts with `env` and resolves once it says it is ready. */
export async function startService(env: NodeJS.ProcessEnv): Promise<RunningService> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts", "start.ts")], {
    cwd: projectRoot,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  keepOutput("start", child);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`start.ts was not ready in time:\n${output}`)), 90_000);
      child.once("exit", (code) => reject(new Error(`start.ts exited with ${code}:\n${output}`)));
      child.stdout!.on("data", () => {
        if (output.includes("Press Ctrl-C")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const base = output.match(/API:\s+(http:\/\/localhost:\d+)/)![1]!.replace("localhost", "127.0.0.1");
  return { base, output: () => output, stop };
}
