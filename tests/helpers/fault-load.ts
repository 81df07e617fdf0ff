// What the infrastructure fault tests share: clients placing orders and retrying each trxid until it
// is answered 200 (as docs/api.md tells a client to), a worker process of the test's own, and the
// check afterwards that nothing was lost or doubled.
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { expect, onTestFinished } from "vitest";
import type pg from "pg";
import { projectRoot } from "@/lib/config/env";
import { checkLedger } from "@/lib/wallet/sql/check-ledger";
import { api } from "./api";
import { TEST_ENV } from "../setup/test-env";
import { keepOutput, logMessages } from "./process-logs";
import { SERVED_SANDBOX_ENDING } from "./sandbox-players";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe` is true (expect.poll outside a test, in a hook); the error says what and why. */
export async function until(what: string, probe: () => boolean, timeoutMs: number, why = () => ""): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${why()}`);
    await sleep(100);
  }
}

/** One HTTP answer to a placement. */
interface PlacementAnswer {
  trxid: string;
  sentAt: number;
  answeredAt: number;
  status: number;
  /** The error code of a JSON error body. */
  code?: string;
  json: boolean;
  replayed: boolean;
}

export interface OrderLoad {
  /** Trxids answered 200. */
  readonly placed: Set<string>;
  readonly answers: PlacementAnswer[];
  /** Requests that got no HTTP answer (refused or cut connections). */
  readonly connectionErrors: { sentAt: number; message: string }[];
  /** Requests still unanswered after `hangMs`: a hang. */
  readonly hung: { trxid: string; sentAt: number }[];
  /** True once no request sent before `time` is still waiting for its answer. */
  settledSince(time: number): boolean;
  /** Places no new order; resolves once every client's last trxid is answered 200. */
  stop(): Promise<void>;
}

/**
 * `clients` clients, each placing one order after another (every fifth for a player the sandbox
 * supplier refuses, so refunds happen too) and retrying its trxid after a connection error or any
 * status but 200. Call it inside a test: the clients give up when the test ends.
 */
export function placeOrdersUntilStopped(options: {
  baseUrl: string;
  key: string;
  prefix: string;
  clients?: number;
  /** Pause between one client's orders. */
  paceMs?: number;
  hangMs?: number;
}): OrderLoad {
  const { baseUrl, key, prefix, clients = 4, paceMs = 30, hangMs = 60_000 } = options;
  let stopped = false;
  let halted = false;
  let next = 0;
  const waitingSince = new Map<number, number>();
  const load = {
    placed: new Set<string>(),
    answers: [] as PlacementAnswer[],
    connectionErrors: [] as { sentAt: number; message: string }[],
    hung: [] as { trxid: string; sentAt: number }[],
  };
  const client = async (id: number) => {
    while (!stopped) {
      const i = next++;
      const trxid = `${prefix}-${i}`;
      const body = { pid: "SVCBR60", trxid, userId: `9${i}${i % 5 === 0 ? "404" : SERVED_SANDBOX_ENDING}` };
      while (!halted) {
        const sentAt = Date.now();
        waitingSince.set(id, sentAt);
        const res = await api("/orders", { key, body, signal: AbortSignal.timeout(hangMs) }, baseUrl).catch(
          (error: Error) => error,
        );
        waitingSince.delete(id);
        if (res instanceof Error) {
          if (res.name === "TimeoutError") load.hung.push({ trxid, sentAt });
          else load.connectionErrors.push({ sentAt, message: String(res.cause ?? res.message) });
        } else {
          load.answers.push({
            trxid,
            sentAt,
            answeredAt: Date.now(),
            status: res.status,
            code: res.json?.code,
            json: (res.headers.get("content-type") ?? "").includes("application/json"),
            replayed: res.headers.get("idempotent-replayed") === "true",
          });
          if (res.status === 200) {
            load.placed.add(trxid);
            break;
          }
        }
        await sleep(100);
      }
      await sleep(paceMs);
    }
  };
  const running = Promise.all(Array.from({ length: clients }, (_, id) => client(id)));
  // A test that fails midway leaves no client retrying against what it tears down.
  onTestFinished(() => {
    stopped = halted = true;
  });
  return {
    ...load,
    settledSince: (time) => [...waitingSince.values()].every((sentAt) => sentAt >= time),
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** The first answer 200 to a request sent at or after `time`, in ms after `time`. */
export function firstSuccessAfter(load: OrderLoad, time: number): number | undefined {
  const answer = load.answers.find((a) => a.sentAt >= time && a.status === 200);
  return answer && answer.answeredAt - time;
}

/**
 * `scripts/worker.ts` with the test settings, its output kept for a failure's message; `ready` once
 * it says it fulfils orders.
 */
export function startWorkerProcess(env: Record<string, string>): {
  child: ChildProcess;
  output: string[];
  ready: Promise<void>;
} {
  const output: string[] = [];
  const child = fork(path.join(projectRoot, "scripts", "worker.ts"), [], {
    env: { ...process.env, ...TEST_ENV, WORKER_SWEEP_MS: "500", WORKER_CONCURRENCY: "4", ...env },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  keepOutput("worker", child);
  const ready = new Promise<void>((resolve, reject) => {
    child.once("exit", (code, signal) => reject(new Error(`worker exited (${signal ?? code})\n${output.join("\n")}`)));
    for (const stream of [child.stdout!, child.stderr!])
      stream.on("data", (chunk: Buffer) => {
        output.push(...chunk.toString().split("\n").filter(Boolean));
        if (logMessages(output.join("\n"), "worker").includes("fulfilling orders")) resolve();
      });
  });
  return { child, output, ready };
}

/**
 * Waits until every order of the account is completed or cancelled, then checks that nothing was
 * lost or doubled: one order per trxid and one for every trxid answered 200, one terminal event
 * and one debit per order, and the ledger check clean. Says how the orders ended.
 */
export async function expectEveryOrderSettledOnce(
  db: pg.Pool,
  options: { accountId: number; placed: Set<string>; timeoutMs?: number; diagnostics?: () => string },
): Promise<string> {
  const { accountId, placed } = options;
  await expect
    .poll(
      async () =>
        (
          await db.query(
            `SELECT count(*)::int AS n FROM orders WHERE account_id = $1 AND status NOT IN ('completed', 'cancelled')`,
            [accountId],
          )
        ).rows[0].n,
      { timeout: options.timeoutMs ?? 90_000, interval: 500 },
    )
    .toBe(0)
    .catch((error: Error) => {
      throw new Error(`${error.message}\n${options.diagnostics?.() ?? ""}`);
    });
  const { rows } = await db.query<{ trxid: string; n: number }>(
    `SELECT trxid, count(*)::int AS n FROM orders WHERE account_id = $1 GROUP BY trxid`,
    [accountId],
  );
  expect(rows.filter((r) => r.n !== 1)).toEqual([]);
  expect(new Set(rows.map((r) => r.trxid))).toEqual(placed);
  const { rows: uneven } = await db.query(
    `SELECT o.public_id,
            (SELECT count(*)::int FROM order_events e WHERE e.order_id = o.id AND e.to_status IN ('completed', 'cancelled')) AS finals,
            (SELECT count(*)::int FROM ledger_entries l WHERE l.order_id = o.id AND l.kind = 'debit') AS debits
       FROM orders o WHERE o.account_id = $1`,
    [accountId],
  );
  expect(uneven.filter((r) => r.finals !== 1 || r.debits !== 1)).toEqual([]);
  // Cancelled orders refunded exactly once, completed ones never: the ledger check says so.
  expect(await checkLedger(db)).toEqual([]);
  const { rows: byStatus } = await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM orders WHERE account_id = $1 GROUP BY status ORDER BY status`,
    [accountId],
  );
  return `${rows.length} orders (${byStatus.map((r) => `${r.n} ${r.status}`).join(", ")})`;
}
