// The README's quickstart runs as written: sdk/examples/quickstart.ts (the TypeScript client) and
// sdk/examples/quickstart.sh (curl), each as a child process against the running service with the
// seeded demo key, each ending with a completed order and the ledger showing its debit.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { seedDemoData } from "@/lib/seed/seed-demo-data";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { baseUrl } from "../helpers/api";
import { sql } from "../helpers/db";
import { useCleanDatabase } from "../helpers/clean-database";

const run = promisify(execFile);
let worker: RunningWorker;
let demo: { accountId: number; key: string };

useCleanDatabase({ catalog: false, checkBooks: true });
beforeAll(async () => {
  // As `npm start` does on an empty database: the demo catalog, account, key and $100.
  const seeded = await seedDemoData();
  if (!seeded.demoApiKey) throw new Error("the seed made no demo key");
  demo = { accountId: seeded.accountId, key: seeded.demoApiKey };
  worker = await startWorker({ connectionString: inject("databaseUrl"), concurrency: 2, log: () => undefined });
});
afterAll(async () => {
  await worker.stop();
});

async function demoOrder(trxid: string) {
  const rows = await sql<{ public_id: string; status: string; debits: number }>(
    `SELECT o.public_id, o.status, (SELECT count(*)::int FROM ledger_entries l WHERE l.order_id = o.id AND l.kind = 'debit') AS debits
       FROM orders o WHERE o.account_id = $1 AND o.trxid = $2`,
    [demo.accountId, trxid],
  );
  expect(rows).toHaveLength(1);
  return rows[0];
}

const env = (trxid: string) => ({ ...process.env, TOPUP_API_URL: baseUrl(), TOPUP_API_KEY: demo.key, TRXID: trxid });

describe("the quickstart", () => {
  it(
    "with the client: sdk/examples/quickstart.ts reaches a completed order and reads the ledger",
    { timeout: 120_000 },
    async () => {
      const trxid = `qs-ts-${Date.now()}`;
      const { stdout } = await run(
        process.execPath,
        ["--import", "tsx", path.join(projectRoot, "sdk/examples/quickstart.ts")],
        {
          cwd: projectRoot,
          env: env(trxid),
          timeout: 110_000,
        },
      );
      const order = await demoOrder(trxid);
      expect(order).toMatchObject({ status: "completed", debits: 1 });
      const lines = stdout.trim().split("\n");
      expect(lines[0]).toBe("balance: 100.00 USD");
      expect(lines[1]).toBe("pack: SVCBR60 (Battle Royale, 60 UC) 0.99 USD");
      expect(lines[2]).toBe(`placed: ${order.public_id} processing (trxid ${trxid})`);
      expect(lines[3]).toMatch(new RegExp(`^finished: ${order.public_id} completed in [\\d.]+ s$`));
      expect(lines.slice(4)).toEqual([
        "ledger (newest first):",
        `  debit -0.99 -> 99.01 ${order.public_id}`,
        "  credit 100.00 -> 100.00",
      ]);
    },
  );

  it("with curl: sdk/examples/quickstart.sh does the same", { timeout: 120_000 }, async (context) => {
    const curl = await run("curl", ["--version"]).catch(() => undefined);
    if (!curl) {
      console.warn("SKIPPED: the curl quickstart needs curl on PATH; it is not installed here");
      return context.skip();
    }
    const trxid = `qs-curl-${Date.now()}`;
    const { stdout } = await run("sh", [path.join(projectRoot, "sdk/examples/quickstart.sh")], {
      cwd: projectRoot,
      env: env(trxid),
      timeout: 110_000,
    });
    const order = await demoOrder(trxid);
    expect(order).toMatchObject({ status: "completed", debits: 1 });
    const answers = stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    const [balance, products, placed, finished, ledger] = answers;
    expect(balance).toMatchObject({ success: true, currency: "USD" });
    expect(products.products.map((p: { id: string }) => p.id)).toContain("SVCBR60");
    expect(placed).toMatchObject({ orderId: order.public_id, status: "processing", trxid });
    expect(finished).toMatchObject({ orderId: order.public_id, status: "completed" });
    expect(ledger.entries[0]).toMatchObject({
      type: "debit",
      amountUsd: -0.99,
      balanceAfterUsd: (Math.round(balance.balanceUsd * 100) - 99) / 100,
      orderId: order.public_id,
    });
  });
});
