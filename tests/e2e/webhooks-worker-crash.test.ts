// kill -9 of a worker in the middle of webhook deliveries (the receiver holds every request open),
// then a new worker: every event is delivered at least once, always under its own webhook-id, and
// each delivery verifies with the endpoint's secret.
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { projectRoot } from "@/lib/config/env";
import { sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { addEndpoint, recordEvent, deliveredCount } from "../helpers/webhooks";
import { TEST_ENV } from "../setup/test-env";
import { useCleanDatabase } from "../helpers/clean-database";
import { keepOutput } from "../helpers/process-logs";
import { suiteDatabaseUrl } from "../helpers/suite";

const started: ChildProcess[] = [];
let receiver: WebhookReceiver;

function startWorkerProcess(): ChildProcess {
  const child = fork(path.join(projectRoot, "scripts", "worker.ts"), [], {
    env: {
      ...process.env,
      ...TEST_ENV,
      DATABASE_URL: suiteDatabaseUrl(),
      WORKER_SWEEP_MS: "500",
      WORKER_CONCURRENCY: "5",
      WEBHOOKS_ALLOW_PRIVATE: "1",
    },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  keepOutput("worker", child);
  started.push(child);
  return child;
}

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  for (const child of started) child.kill("SIGKILL");
  await receiver?.close();
});

describe("a worker killed with SIGKILL mid-delivery", () => {
  it("loses no event: after a restart each is delivered at least once under the same webhook-id", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    receiver.defaultAnswer = "hang";
    const events = [];
    for (let i = 0; i < 8; i++)
      events.push(await recordEvent(account.accountId, "endpoint.test", { i }, endpoint.endpointId));
    const eventIds = new Set(events.map((e) => e.id));

    const first = startWorkerProcess();
    // The first worker is in the middle of several deliveries: the receiver holds them open.
    await expect.poll(() => receiver.received.length, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(3);
    const hung = new Set(receiver.received.map((r) => r.headers["webhook-id"]!));
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    // Nothing was recorded for the interrupted attempts.
    expect(await sql(`SELECT count(*)::int AS n FROM webhook_attempts`)).toEqual([{ n: 0 }]);

    receiver.defaultAnswer = { status: 204 };
    startWorkerProcess();
    await expect
      .poll(() => deliveredCount(endpoint.endpointId), {
        timeout: 60_000,
        interval: 250,
      })
      .toBe(8);

    const verifier = new Webhook(endpoint.secret);
    const byId = new Map<string, string[]>();
    for (const request of receiver.received) {
      const id = request.headers["webhook-id"]!;
      expect(eventIds.has(id)).toBe(true);
      byId.set(id, [...(byId.get(id) ?? []), request.body]);
      // Attempts made after the restart are fresh signatures; the held ones were signed minutes
      // ago at most, so every request verifies.
      expect(verifier.verify(request.body, request.headers)).toMatchObject({ type: "endpoint.test" });
    }
    for (const id of eventIds) expect(byId.get(id)?.length ?? 0, id).toBeGreaterThanOrEqual(1);
    // The deliveries interrupted by the kill were made again, under the same id and body.
    for (const id of hung) {
      const bodies = byId.get(id)!;
      expect(bodies.length, id).toBeGreaterThanOrEqual(2);
      expect(new Set(bodies).size).toBe(1);
    }
    const attempts = await sql(
      `SELECT d.attempts, count(a.id)::int AS recorded FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
        WHERE d.endpoint_id = $1 GROUP BY d.id`,
      [endpoint.endpointId],
    );
    expect(attempts.every((a) => a.attempts === 1 && a.recorded === 1)).toBe(true);
  }, 120_000);
});
