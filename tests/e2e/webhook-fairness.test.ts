// One account's flood cannot hold back another account's webhooks. Account B, never funded, points
// five endpoints at a receiver that never answers (each attempt waits out the 15 s timeout) and
// floods them with test events and replays over HTTP, while account A places orders over HTTP.
// A real worker process (default concurrency and caps) fulfils the orders and delivers both
// accounts' webhooks. A's order.completed webhooks must all arrive while B's older deliveries still
// wait their turn: A's were not queued behind B's. An order of events, not a time, so a busy machine
// cannot fail it. The delay after settlement is only printed (the bench's webhook phase measures it
// under load).
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { sendTestEvent } from "@/lib/webhooks/send-test-event";
import { api } from "../helpers/api";
import { sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { addEndpoint } from "../helpers/webhooks";
import { TEST_ENV } from "../setup/test-env";
import { useCleanDatabase } from "../helpers/clean-database";
import { keepOutput } from "../helpers/process-logs";
import { suiteDatabaseUrl } from "../helpers/suite";

const ORDERS = 30;
let worker: ChildProcess | undefined;
let fast: WebhookReceiver;
let dead: WebhookReceiver;

useCleanDatabase();
beforeAll(async () => {
  fast = await WebhookReceiver.start();
  fast.defaultAnswer = { status: 204 };
  dead = await WebhookReceiver.start();
  dead.defaultAnswer = "hang";
});
afterAll(async () => {
  worker?.kill("SIGKILL");
  await fast?.close();
  await dead?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

describe("webhook fairness between accounts", () => {
  it("B's flood at endpoints that never answer does not hold back A's webhooks: A's overtake B's older deliveries", async () => {
    const a = await createAccount({ balanceCents: 100_000 });
    await addEndpoint(a.accountId, fast.url, ["order.completed"]);
    const b = await createAccount();
    const deadEndpoints = [];
    for (let i = 0; i < 5; i++) deadEndpoints.push((await addEndpoint(b.accountId, `${dead.url}/${i}`)).endpointId);

    worker = fork(path.join(projectRoot, "scripts", "worker.ts"), [], {
      env: { ...process.env, ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl(), WEBHOOKS_ALLOW_PRIVATE: "1" },
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    keepOutput("worker", worker);

    // B floods for as long as A orders: test events (as the bot's /webhook test sends them) and
    // replays of them to each endpoint, over HTTP.
    let flooding = true;
    const floodAnswers: number[] = [];
    const flood = (async () => {
      for (let round = 0; flooding; round++) {
        const endpointId = deadEndpoints[round % deadEndpoints.length]!;
        await sendTestEvent({ accountId: b.accountId, endpointId });
        const replay = await api(`/webhooks/replay`, { key: b.key, body: { after: 0, endpointId } });
        floodAnswers.push(replay.status);
        await sleep(50);
      }
    })();

    // A places an order every 600 ms for about 18 s: longer than one round of B's timeouts.
    const placed: string[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const res = await order(a.key, { pid: "SVCBR60", trxid: newTrxid("fair"), userId: "5150001" });
      expect(res.status).toBe(200);
      placed.push(res.json.orderId as string);
      await sleep(600);
    }
    const completedEvents = async () =>
      sql<{ public_id: string; created_at: Date }>(
        `SELECT public_id, created_at FROM webhook_events WHERE account_id = $1 AND type = 'order.completed'`,
        [a.accountId],
      );
    await expect.poll(async () => (await completedEvents()).length, { timeout: 60_000, interval: 250 }).toBe(ORDERS);
    await expect
      .poll(() => new Set(fast.received.map((r) => r.headers["webhook-id"])).size, { timeout: 60_000, interval: 250 })
      .toBe(ORDERS);
    // As soon as A's last webhook arrived, B still has deliveries queued before A's last one that no
    // dispatcher has tried yet: A's were not served behind B's backlog, as a first-come queue would.
    const overtaken = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE e.account_id = $1 AND d.status = 'pending' AND d.attempts = 0 AND d.claimed_by IS NULL
          AND d.id < (SELECT max(d2.id) FROM webhook_deliveries d2 JOIN webhook_endpoints e2 ON e2.id = d2.endpoint_id
                       WHERE e2.account_id = $2)`,
      [b.accountId, a.accountId],
    );
    expect(overtaken[0]!.n, "B's deliveries queued before A's last one and not yet tried").toBeGreaterThan(0);

    flooding = false;
    await flood;

    // B's flood was real: its endpoints were tried and held requests open, and its replays answered.
    expect(dead.received.length).toBeGreaterThan(0);
    expect(floodAnswers.length).toBeGreaterThan(10);
    expect(floodAnswers.every((status) => status === 200 || status === 429)).toBe(true);

    const arrived = new Map<string, number>();
    for (const request of fast.received) {
      const id = request.headers["webhook-id"]!;
      if (!arrived.has(id)) arrived.set(id, request.receivedAt);
    }
    const lags = (await completedEvents()).map((event) => arrived.get(event.public_id)! - event.created_at.getTime());
    console.log(
      `[webhook fairness] A's order.completed webhooks: p50 ${percentile(lags, 50)} ms, p99 ${percentile(lags, 99)} ms ` +
        `after settlement; B's dead endpoints got ${dead.received.length} requests, B made ${floodAnswers.length} replays; ` +
        `${overtaken[0]!.n} of B's older deliveries not yet tried`,
    );
    await expectBooksBalance();
  }, 180_000);
});
