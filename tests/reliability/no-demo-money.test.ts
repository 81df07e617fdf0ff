// Money and keys are never made outside development. `npm start` (scripts/start.ts) in production,
// on an empty database of its own, loads the catalog and nothing else: no account, no ledger entry,
// no API key, none printed, not even with DEMO_API_KEY set; `npm run db:seed` there does the same.
// Development keeps its demo account and key (tests/e2e/npm-start.test.ts).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { MIN_PRODUCTION_SECRET_LENGTH } from "@/lib/config/secrets";

const DATABASE = `no_demo_money_${process.pid}`;
const DEMO_API_KEY = `svc_${"D".repeat(40)}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-production-"));
let databaseUrl = "";

async function onServer<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const serverUrl = () => {
  const url = new URL(inject("databaseUrl"));
  url.pathname = "/postgres";
  return url.toString();
};

beforeAll(async () => {
  await onServer(serverUrl(), async (client) => {
    await client.query(`drop database if exists ${DATABASE}`);
    await client.query(`create database ${DATABASE}`);
  });
  const url = new URL(inject("databaseUrl"));
  url.pathname = `/${DATABASE}`;
  databaseUrl = url.toString();
});

afterAll(async () => {
  await onServer(serverUrl(), (client) => client.query(`drop database if exists ${DATABASE} with (force)`));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function productionEnv(): NodeJS.ProcessEnv {
  // Only what is given here: nothing leaks in from the test process's environment.
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    SERVE_DASHBOARD: "0",
    DEMO_API_KEY,
    APP_SECRET: "a".repeat(MIN_PRODUCTION_SECRET_LENGTH),
    CODES_ENCRYPTION_KEY: "k".repeat(MIN_PRODUCTION_SECRET_LENGTH),
    NEXTAUTH_SECRET: "n".repeat(MIN_PRODUCTION_SECRET_LENGTH),
  } as unknown as NodeJS.ProcessEnv;
}

/** Runs scripts/start.ts until it says it is ready, then stops it; resolves with all it printed. */
async function startOnce(): Promise<{ output: string; base: string; balance: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts", "start.ts")], {
    cwd: projectRoot,
    env: productionEnv(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`start.ts was not ready in time:\n${output}`)), 90_000);
      child.once("exit", (code) => reject(new Error(`start.ts exited with ${code}:\n${output}`)));
      const onData = () => {
        if (output.includes("Press Ctrl-C")) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on("data", onData);
    });
    const base = output.match(/API:\s+(http:\/\/localhost:\d+)/)![1]!.replace("localhost", "127.0.0.1");
    // The key DEMO_API_KEY names opens nothing: no such key was issued.
    const balance = (await fetch(`${base}/balance`, { headers: { "x-api-key": DEMO_API_KEY } })).status;
    return { output, base, balance };
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
  }
}

const counts = () =>
  onServer(databaseUrl, async (client) => {
    const one = async (table: string) =>
      Number((await client.query(`select count(*)::int as n from ${table}`)).rows[0].n);
    return {
      accounts: await one("accounts"),
      ledgerEntries: await one("ledger_entries"),
      apiKeys: await one("api_keys"),
      inventoryCodes: await one("inventory_codes"),
      products: await one("products"),
    };
  });

describe("production start on an empty database", () => {
  it("npm start creates no account, no money and no key, prints no key, and loads the catalog without demo codes", async () => {
    const first = await startOnce();
    expect(first.output).toContain("production: no demo account, money or key");
    expect(first.output).not.toMatch(/svc_[A-Za-z0-9]/);
    expect(first.output).not.toContain("Demo key");
    expect(first.balance).toBe(401);
    const after = await counts();
    expect(after).toMatchObject({ accounts: 0, ledgerEntries: 0, apiKeys: 0, inventoryCodes: 0 });
    expect(after.products).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(dataDir, "demo-api-key"))).toBe(false);

    // Started again on the database it left: still nothing, and still no key printed.
    const second = await startOnce();
    expect(second.output).not.toMatch(/svc_[A-Za-z0-9]|Demo key/);
    expect(await counts()).toEqual(after);
  }, 240_000);

  it("npm run db:seed in production loads the catalog only", async () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts", "seed.ts")], {
      cwd: projectRoot,
      env: productionEnv(),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain("production: catalog loaded; no demo account, money or key");
    expect(result.stdout + result.stderr).not.toMatch(/svc_[A-Za-z0-9]/);
    expect(await counts()).toMatchObject({ accounts: 0, ledgerEntries: 0, apiKeys: 0, inventoryCodes: 0 });
  }, 90_000);
});
