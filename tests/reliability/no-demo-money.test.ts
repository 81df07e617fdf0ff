// Money and keys are never made outside development. `npm start` (scripts/start.ts) in production,
// on an empty database of its own, loads the catalog and nothing else: no account, no ledger entry,
// no API key, none printed, not even with DEMO_API_KEY set, and no sandbox supplier or offer;
// `npm run db:seed` there does the same.
// Development keeps its demo account and key (tests/e2e/npm-start.test.ts).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { createEmptyDatabase, onDatabase, productionEnv, startService } from "../helpers/production-start";

const DEMO_API_KEY = `svc_${"D".repeat(40)}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-production-"));
let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
let databaseUrl = "";

beforeAll(async () => {
  database = await createEmptyDatabase(`no_demo_money_${process.pid}`);
  databaseUrl = database.url;
});

afterAll(async () => {
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const environment = () => productionEnv({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, DEMO_API_KEY });

/** Runs scripts/start.ts until it says it is ready, then stops it; resolves with all it printed. */
async function startOnce(): Promise<{ output: string; base: string; balance: number }> {
  const service = await startService(environment());
  try {
    // The key DEMO_API_KEY names opens nothing: no such key was issued.
    const balance = (await fetch(`${service.base}/balance`, { headers: { "x-api-key": DEMO_API_KEY } })).status;
    return { output: service.output(), base: service.base, balance };
  } finally {
    await service.stop();
  }
}

const counts = () =>
  onDatabase(databaseUrl, async (client) => {
    const one = async (table: string) =>
      Number((await client.query(`select count(*)::int as n from ${table}`)).rows[0].n);
    return {
      accounts: await one("accounts"),
      ledgerEntries: await one("ledger_entries"),
      apiKeys: await one("api_keys"),
      inventoryCodes: await one("inventory_codes"),
      products: await one("products"),
      suppliers: await one("suppliers"),
      supplierOffers: await one("supplier_offers"),
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
    // No sandbox supplier and no offer either: nothing would fake a delivery.
    expect(after).toMatchObject({
      accounts: 0,
      ledgerEntries: 0,
      apiKeys: 0,
      inventoryCodes: 0,
      suppliers: 0,
      supplierOffers: 0,
    });
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
      env: environment(),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain("production: catalog loaded; no demo account, money or key");
    expect(result.stdout + result.stderr).not.toMatch(/svc_[A-Za-z0-9]/);
    expect(await counts()).toMatchObject({
      accounts: 0,
      ledgerEntries: 0,
      apiKeys: 0,
      inventoryCodes: 0,
      suppliers: 0,
      supplierOffers: 0,
    });
  }, 90_000);
});
