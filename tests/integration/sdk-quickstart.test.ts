// The README's quickstart runs as written: the longer sdk/examples/quickstart.ts (the TypeScript
// client) and sdk/examples/quickstart.sh (curl), then the README's own curl block and TypeScript
// block (read from between their markers), each as a child process against the running service
// with the seeded demo key, each ending with a completed order and the ledger showing its debit.
// quickstart.ts runs first: it expects the untouched $100 demo wallet.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { seedDemoData } from "@/lib/seed/seed-demo-data";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { firstOf, sql } from "../helpers/db";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteBaseUrl, suiteDatabaseUrl } from "../helpers/suite";

const run = promisify(execFile);
let worker: RunningWorker;
let demo: { accountId: number; key: string };

useCleanDatabase({ catalog: false, checkBooks: true });
beforeAll(async () => {
  // As `npm start` does on an empty database: the demo catalog, account, key and $100.
  const seeded = await seedDemoData();
  if (!seeded.demoApiKey) throw new Error("the seed made no demo key");
  demo = { accountId: seeded.accountId, key: seeded.demoApiKey };
  worker = await startWorker({ connectionString: suiteDatabaseUrl(), concurrency: 2, log: () => undefined });
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
  return firstOf(rows);
}

const env = (trxid: string) => ({
  ...process.env,
  TOPUP_API_URL: suiteBaseUrl(),
  TOPUP_API_KEY: demo.key,
  TRXID: trxid,
});

/** The code block of `language` between the README's `<!-- name:start -->` and `<!-- name:end -->`. */
function readmeBlock(name: string, language: string): string {
  const readme = fs.readFileSync(path.join(projectRoot, "README.md"), "utf8");
  const start = readme.indexOf(`<!-- ${name}:start -->`);
  const end = readme.indexOf(`<!-- ${name}:end -->`);
  expect(start, `README.md has the ${name} markers`).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  const block = readme.slice(start, end).match(new RegExp("```" + language + "\\n([\\s\\S]*?)```"));
  expect(block, `a ${language} block between the ${name} markers`).not.toBeNull();
  return block![1]!;
}

async function curlMissing(context: { skip: () => void }): Promise<boolean> {
  if (await run("curl", ["--version"]).catch(() => undefined)) return false;
  console.warn("SKIPPED: the curl quickstart needs curl on PATH; it is not installed here");
  context.skip();
  return true;
}

/** The quickstart's five answers in order: balance, products, the placed order, its final state, the ledger. */
function expectQuickstartAnswers(answers: any[], publicId: string, trxid: string): void {
  const [balance, products, placed, finished, ledger] = answers;
  expect(balance).toMatchObject({ success: true, currency: "USD" });
  expect(products.products.map((p: { id: string }) => p.id)).toContain("SVCBR60");
  expect(placed).toMatchObject({ orderId: publicId, status: "processing", trxid });
  expect(finished).toMatchObject({ orderId: publicId, status: "completed" });
  expect(ledger.entries[0]).toMatchObject({
    type: "debit",
    amountUsd: -0.99,
    balanceAfterUsd: (Math.round(balance.balanceUsd * 100) - 99) / 100,
    orderId: publicId,
  });
}

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
    if (await curlMissing(context)) return;
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
    expectQuickstartAnswers(answers, order.public_id, trxid);
  });

  it(
    "the README's curl block, command by command, reaches a completed order and its debit",
    { timeout: 120_000 },
    async (context) => {
      if (await curlMissing(context)) return;
      // One command per line, continuations joined; each run by sh as a reader would paste it.
      const commands = readmeBlock("quickstart-curl", "sh")
        .replace(/\\\n\s*/g, "")
        .split("\n")
        .filter((line) => line.trim() !== "");
      expect(commands).toHaveLength(5);
      const answers = [];
      for (const command of commands) {
        const { stdout } = await run("sh", ["-c", command], {
          env: env("unused"),
          timeout: 60_000,
        });
        answers.push(JSON.parse(stdout));
      }
      const order = await demoOrder("my-order-1");
      expect(order).toMatchObject({ status: "completed", debits: 1 });
      expectQuickstartAnswers(answers, order.public_id, "my-order-1");
    },
  );

  it("the README's TypeScript block runs as an ES module and completes its order", { timeout: 120_000 }, async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "readme-quickstart-"));
    const file = path.join(directory, "quickstart.mts");
    fs.writeFileSync(file, readmeBlock("quickstart-client", "ts"));
    try {
      // From the project root, so "@topup-api/client" resolves to sdk/ as an installed package would.
      const { stdout } = await run(process.execPath, ["--import", "tsx", file], {
        cwd: projectRoot,
        env: env("unused"),
        timeout: 110_000,
      });
      const order = await demoOrder("my-order-2");
      expect(order).toMatchObject({ status: "completed", debits: 1 });
      const lines = stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^debit -0\.99 \d+(\.\d+)?$/);
      expect(lines.at(-1)).toBe("credit 100 100");
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
