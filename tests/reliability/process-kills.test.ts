// The worker and the web process killed with SIGKILL under load, each more than once, as `npm start`
// runs them (scripts/start.ts: supervised children, restarted with backoff): clients keep placing
// orders and retrying each trxid until it is answered 200. The supervisor brings each back by itself;
// afterwards every order is terminal exactly once, one per trxid, debited once, and the books balance.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { useCleanDatabase } from "../helpers/clean-database";
import {
  expectEveryOrderSettledOnce,
  firstSuccessAfter,
  placeOrdersUntilStopped,
  sleep,
  until,
} from "../helpers/fault-load";
import { createAccount } from "../helpers/fixtures";
import { isAlive, processesRunning, processesWithEnv } from "../helpers/processes";
import { TEST_ENV } from "../setup/test-env";
import { keepOutput, logMessages } from "../helpers/process-logs";
import { suiteDatabaseUrl } from "../helpers/suite";

// Also what marks this start's processes: every one of them carries DATA_DIR.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-kills-"));
let start: ChildProcess | undefined;
let output = "";
let baseUrl = "";
let db: pg.Pool;

useCleanDatabase();

beforeAll(async () => {
  db = new pg.Pool({ connectionString: suiteDatabaseUrl(), max: 2 });
  start = spawn(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts", "start.ts")], {
    cwd: projectRoot,
    env: {
      ...process.env,
      ...TEST_ENV,
      DATABASE_URL: suiteDatabaseUrl(),
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      SERVE_DASHBOARD: "0",
      WORKER_SWEEP_MS: "500",
      // Every supplier call takes a while, so a killed worker surely had jobs running.
      SANDBOX_LATENCY_MS: "300",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  keepOutput("start", start);
  start.stdout!.on("data", (chunk) => (output += chunk));
  start.stderr!.on("data", (chunk) => (output += chunk));
  await until("npm start to serve", () => output.includes("Press Ctrl-C") || start!.exitCode !== null, 120_000);
  expect(start.exitCode, output).toBeNull();
  baseUrl = `http://127.0.0.1:${output.match(/API:\s+http:\/\/localhost:(\d+)/)![1]}`;
  await until(
    "the worker",
    () => said("worker", "fulfilling orders") > 0,
    60_000,
    () => output,
  );
}, 180_000);

afterAll(async () => {
  if (start && start.exitCode === null && start.signalCode === null) {
    const ended = new Promise((resolve) => start!.once("exit", resolve));
    start.kill("SIGTERM");
    await Promise.race([ended, sleep(30_000)]);
  }
  for (const pid of processesWithEnv("DATA_DIR", dataDir)) process.kill(pid, "SIGKILL");
  await db?.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The one live process of this start running `script`. */
async function theProcess(script: string): Promise<number> {
  let pids: number[] = [];
  await expect
    .poll(() => (pids = processesRunning(script, "DATA_DIR", dataDir)).length, { timeout: 60_000, interval: 100 })
    .toBe(1);
  return pids[0]!;
}

async function killAndWait(pid: number): Promise<void> {
  process.kill(pid, "SIGKILL");
  await until(`process ${pid} to be gone`, () => !isAlive(pid), 30_000);
}

/** How many of the log lines `processName` wrote say `message` (or begin with it, given `prefix`). */
const said = (processName: string, message: string, prefix = false) =>
  logMessages(output, processName).filter((line) => (prefix ? line.startsWith(message) : line === message)).length;
const diagnostics = () => output.split("\n").slice(-60).join("\n");

describe("npm start's children killed under load", () => {
  it("the worker killed three times mid-job: restarted each time; every order terminal exactly once, books balanced", async () => {
    const account = await createAccount({ balanceCents: 1_000_000 });
    const load = placeOrdersUntilStopped({ baseUrl, key: account.key, prefix: "worker-kill", paceMs: 100 });
    const backMs: number[] = [];
    for (let kill = 0; kill < 3; kill++) {
      const worker = await theProcess("worker.ts");
      const readyBefore = said("worker", "fulfilling orders");
      // Kill it while it has jobs of its own running (taken after it appeared).
      const { since } = (await db.query(`SELECT now() AS since`)).rows[0];
      await expect
        .poll(
          async () =>
            (
              await db.query(
                `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE locked_by IS NOT NULL AND locked_at > $1`,
                [since],
              )
            ).rows[0].n,
          { timeout: 60_000, interval: 100 },
        )
        .toBeGreaterThan(0);
      await killAndWait(worker);
      const killedAt = Date.now();
      await until("a restarted worker", () => said("worker", "fulfilling orders") > readyBefore, 60_000, diagnostics);
      backMs.push(Date.now() - killedAt);
    }
    await sleep(1000);
    await load.stop();
    expect(said("start", "worker stopped unexpectedly (killed by SIGKILL); restarting it", true)).toBe(3);

    // The API kept answering throughout: every placement answered, none refused by a connection.
    expect(load.connectionErrors).toEqual([]);
    expect(load.hung).toEqual([]);
    expect(load.answers.filter((a) => a.status !== 200 && (a.status !== 503 || !a.json))).toEqual([]);
    const settledFrom = Date.now();
    const outcome = await expectEveryOrderSettledOnce(db, {
      accountId: account.accountId,
      placed: load.placed,
      timeoutMs: 120_000,
      diagnostics,
    });
    // Their jobs stayed locked under the dead workers' ids until a live worker's sweep let them go.
    expect(logMessages(output, "worker").some((line) => /^released jobs of \d+ dead worker/.test(line))).toBe(true);
    console.log(
      `[process-kills] worker killed 3 times with jobs running: fulfilling again ${backMs.join(", ")} ms after each` +
        ` kill; ${outcome}, every order terminal ${Date.now() - settledFrom} ms after the load stopped (the dead` +
        ` workers' jobs released by the sweep); ${load.answers.length} answers, no connection refused; books balance`,
    );
  }, 300_000);

  it("the web process killed twice mid-placement: restarted on its port; retried trxids get one order each, books balanced", async () => {
    const account = await createAccount({ balanceCents: 1_000_000 });
    const load = placeOrdersUntilStopped({ baseUrl, key: account.key, prefix: "web-kill", paceMs: 50 });
    const backMs: number[] = [];
    for (let kill = 0; kill < 2; kill++) {
      const web = await theProcess("serve.ts");
      // Kill it while it is serving placements.
      const placedBefore = load.placed.size;
      await expect.poll(() => load.placed.size, { timeout: 60_000, interval: 50 }).toBeGreaterThan(placedBefore + 10);
      await killAndWait(web);
      const killedAt = Date.now();
      await until(
        "a placement answered 200",
        () => firstSuccessAfter(load, killedAt) !== undefined,
        60_000,
        diagnostics,
      );
      backMs.push(firstSuccessAfter(load, killedAt)!);
    }
    await sleep(1000);
    await load.stop();
    expect(said("start", "web stopped unexpectedly (killed by SIGKILL); restarting it", true)).toBe(2);
    expect(said("start", "web is back on port", true)).toBe(2);

    // While it was gone the clients' connections were refused (or cut mid-request); every HTTP
    // answer was 200 or a JSON 503, or DUPLICATE_IN_FLIGHT while the killed process's database
    // session still held the trxid's lock; nothing hung.
    expect(load.connectionErrors.length).toBeGreaterThan(0);
    expect(load.hung).toEqual([]);
    expect(
      load.answers.filter(
        (a) => a.status !== 200 && !(a.json && (a.status === 503 || a.code === "DUPLICATE_IN_FLIGHT")),
      ),
    ).toEqual([]);
    const outcome = await expectEveryOrderSettledOnce(db, {
      accountId: account.accountId,
      placed: load.placed,
      timeoutMs: 120_000,
      diagnostics,
    });
    // A placement committed just before the kill, whose answer was lost, is answered as a replay.
    const replays = load.answers.filter((a) => a.status === 200 && a.replayed).length;
    console.log(
      `[process-kills] web killed twice: placements answered again ${backMs.join(", ")} ms after each kill;` +
        ` ${load.connectionErrors.length} connection errors meanwhile, ${replays} retries answered as replays;` +
        ` ${outcome}, one debit each; books balance`,
    );
  }, 300_000);
});
