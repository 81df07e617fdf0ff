// kill -9 of a worker process while a batch is being fulfilled, then a new worker: every order
// reaches a terminal state exactly once, with no second delivery and no second refund.
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { TEST_ENV } from "../setup/test-env";
import { useCleanDatabase } from "../helpers/clean-database";
import { keepOutput } from "../helpers/process-logs";
import { suiteDatabaseUrl } from "../helpers/suite";

const started: ChildProcess[] = [];

function startWorkerProcess(env: Record<string, string>): ChildProcess {
  const child = fork(path.join(projectRoot, "scripts", "worker.ts"), [], {
    env: { ...process.env, ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl(), WORKER_SWEEP_MS: "500", ...env },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  keepOutput("worker", child);
  started.push(child);
  return child;
}

useCleanDatabase();
afterAll(async () => {
  for (const child of started) child.kill("SIGKILL");
});

describe("a worker killed with SIGKILL mid-fulfilment", () => {
  it("loses nothing: after a restart every order is terminal exactly once", async () => {
    const account = await createAccount({ balanceCents: 100_000 });
    // Every supplier call takes 1.5 s, so the first worker is surely in the middle of several.
    const first = startWorkerProcess({ SANDBOX_LATENCY_MS: "1500", WORKER_CONCURRENCY: "5" });
    const placed = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        order(account.key, { pid: "SVCBR60", trxid: newTrxid(`k${i}`), userId: i % 4 === 0 ? `71${i}404` : `71${i}` }),
      ),
    );
    expect(placed.every((p) => p.status === 200 && p.json.orderCreated)).toBe(true);
    await expect
      .poll(
        async () => (await sqlRow(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE locked_by IS NOT NULL`)).n,
        {
          timeout: 15_000,
          interval: 100,
        },
      )
      .toBeGreaterThan(0);
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    const unfinished = (
      await sqlRow(
        `SELECT count(*)::int AS n FROM orders WHERE account_id = $1 AND status IN ('pending', 'processing')`,
        [account.accountId],
      )
    ).n;
    expect(unfinished).toBeGreaterThan(0);

    startWorkerProcess({ SANDBOX_LATENCY_MS: "50", WORKER_CONCURRENCY: "5" });
    await expect
      .poll(
        async () =>
          (
            await sqlRow(
              `SELECT count(*)::int AS n FROM orders WHERE account_id = $1 AND status IN ('pending', 'processing')`,
              [account.accountId],
            )
          ).n,
        {
          timeout: 40_000,
          interval: 250,
        },
      )
      .toBe(0);

    const finals = await sql(
      `SELECT o.id, o.status, count(*) FILTER (WHERE e.to_status IN ('completed', 'cancelled'))::int AS finals
         FROM orders o JOIN order_events e ON e.order_id = o.id WHERE o.account_id = $1 GROUP BY o.id, o.status`,
      [account.accountId],
    );
    expect(finals).toHaveLength(20);
    expect(finals.every((f) => f.finals === 1)).toBe(true);
    expect(finals.filter((f) => f.status === "cancelled")).toHaveLength(5);
    await expectBooksBalance();
  }, 90_000);
});
