// The service as Prometheus sees it: a real Prometheus scrapes a web process (its /metrics, with the
// bearer token) and a worker (its own metrics port), with the repository's alert rules loaded. Orders
// placed while no worker runs show in the queue; once a worker runs, the queue empties and the
// order, supplier and HTTP series have moved by exactly what was done. The same figures are the
// dashboard overview's (its own reads). promtool checks what every process serves.
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { readOrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import { readWalletLiability } from "@/lib/dashboard/read-wallet-liability";
import { countOpenOrders } from "@/lib/dashboard/read-order-backlog";
import { api } from "../helpers/api";
import { createAccount } from "../helpers/fixtures";
import { newTrxid } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { jsonLogLines, keepOutput } from "../helpers/process-logs";
import { FakeTelegram } from "../helpers/fake-telegram";
import {
  prometheusBinary,
  promtool,
  promtoolBinary,
  startPrometheus,
  TEST_METRICS_TOKEN,
  type RunningPrometheus,
} from "../helpers/prometheus";
import { suiteDatabaseUrl } from "../helpers/suite";

useCleanDatabase();

const children: ChildProcess[] = [];
let web: Awaited<ReturnType<typeof startServer>> | undefined;
let prometheus: RunningPrometheus | undefined;
let workerPort: number | undefined;
const missing = !prometheusBinary ? "prometheus" : !promtoolBinary ? "promtool" : undefined;

/** A script of the service as a process, with its output kept; resolves with the metrics port it logs. */
async function startWithMetricsPort(script: string, env: Record<string, string>): Promise<number> {
  const child = fork(path.join(projectRoot, "scripts", script), [], {
    env: { ...process.env, ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl(), ...env },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  children.push(child);
  const logFile = keepOutput(script.replace(/\.ts$/, ""), child);
  let port: number | undefined;
  await expect
    .poll(
      () => {
        const line = jsonLogLines(logFile).find((entry) => entry.component === "metrics" && entry.port);
        port = line?.port as number | undefined;
        return port !== undefined || child.exitCode !== null;
      },
      { timeout: 60_000, interval: 200, message: `${script} logs its metrics port` },
    )
    .toBe(true);
  expect(child.exitCode, `${script} exited early`).toBeNull();
  return port!;
}

async function metricsText(url: string, token?: string): Promise<string> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

function expectPromtoolPasses(text: string, what: string) {
  const checked = promtool(["check", "metrics"], text);
  expect(checked.output.trim(), `promtool check metrics on ${what}`).toBe("");
  expect(checked.code, `promtool check metrics on ${what}: ${checked.output}`).toBe(0);
}

/** Polls Prometheus until `expression` equals `expected` (it scrapes every second). */
async function until(expression: string, expected: number) {
  await expect
    .poll(() => prometheus!.value(expression), { timeout: 90_000, interval: 500, message: expression })
    .toBe(expected);
}

beforeAll(async () => {
  if (missing) return;
  web = await startServer({
    ...TEST_ENV,
    DATABASE_URL: suiteDatabaseUrl(),
    SERVE_DASHBOARD: "0",
    METRICS_TOKEN: TEST_METRICS_TOKEN,
    // Two failed authentications a minute per network, counted apart from the suite's other servers.
    RATE_LIMIT_AUTH_FAILURES: "2",
    RATE_LIMIT_PREFIX: `${TEST_ENV.RATE_LIMIT_PREFIX}-prometheus`,
  });
  children.push(web.child);
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
});

describe("the service's metrics, scraped by a real Prometheus", () => {
  it("move by what was done: HTTP requests, orders, the queue, supplier calls", async (ctx) => {
    if (missing) {
      console.warn(`SKIPPED: ${missing} is not installed here (Debian's prometheus package; .ci/run installs it)`);
      ctx.skip(`${missing} is not installed (apt-get install prometheus)`);
    }
    const webTarget = { job: "topup-web", address: new URL(web!.baseUrl).host, bearerToken: TEST_METRICS_TOKEN };
    prometheus = await startPrometheus([webTarget]);
    await until('up{job="topup-web"}', 1);

    // The rules file loaded into Prometheus itself.
    const rules = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { name: string; health: string }[] }[] };
    };
    const loaded = rules.data.groups.flatMap((group) => group.rules);
    expect(loaded.map((rule) => rule.name)).toContain("TopupQueueBacklog");

    // Six orders with no worker running: five paid (one for a player the sandbox does not find),
    // and one refused for want of balance.
    const payer = await createAccount({ balanceCents: 1000 });
    const broke = await createAccount({ balanceCents: 0 });
    const players = ["5100001", "5100002", "5100003", "5100004", "5100404"];
    for (const userId of players) {
      const placed = await api(
        "/orders",
        { key: payer.key, body: { pid: "SVCBR60", trxid: newTrxid("prom"), userId } },
        web!.baseUrl,
      );
      expect(placed.status).toBe(200);
      expect(placed.json.status).toBe("processing");
    }
    const refused = await api(
      "/orders",
      { key: broke.key, body: { pid: "SVCBR60", trxid: newTrxid("prom"), userId: "5100005" } },
      web!.baseUrl,
    );
    expect(refused.status).toBe(200);
    expect(refused.json.status).toBe("cancelled");
    // A replay is an answer, not an order.
    const replayTrxid = newTrxid("prom-replay");
    for (let i = 0; i < 2; i++) {
      const replayed = await api(
        "/orders",
        { key: payer.key, body: { pid: "SVCBR60", trxid: replayTrxid, userId: "5100006" } },
        web!.baseUrl,
      );
      expect(replayed.status).toBe(200);
    }

    await until('sum(topup_orders_placed_total{kind="topup",line="br",mode="live"})', 7);
    await until('sum(topup_orders_cancelled_total{stage="placement"})', 1);
    await until('sum(topup_http_requests_total{route="/orders",method="POST",status="200"})', 8);
    await until('max(topup_queue_jobs{task="fulfil_order",state="ready"})', 6);
    await until('max(topup_orders_open{state="in_flight"})', 6);
    expect(await prometheus.value('max(topup_queue_oldest_job_age_seconds{task="fulfil_order"})')).toBeGreaterThan(0);
    expect(await prometheus.value("sum(topup_orders_completed_total)")).toBe(0);

    // A worker drains the queue; its port (WORKER_METRICS_PORT=0: a free one, logged) joins the scrape.
    workerPort = await startWithMetricsPort("worker.ts", { WORKER_METRICS_PORT: "0" });
    prometheus.scrape([webTarget, { job: "topup-worker", address: `127.0.0.1:${workerPort}` }]);
    await until('up{job="topup-worker"}', 1);
    await until('sum(topup_orders_completed_total{kind="topup",line="br",mode="live"})', 5);
    await until('sum(topup_orders_cancelled_total{stage="fulfilment"})', 1);
    await until('max(topup_queue_jobs{task="fulfil_order",state="ready"})', 0);
    await until('max(topup_orders_open{state="in_flight"})', 0);
    await until("sum(topup_order_fulfilment_seconds_count)", 5);
    await until('sum(topup_supplier_attempts_total{supplier="sandbox",outcome="success"})', 5);
    await until('sum(topup_supplier_attempts_total{supplier="sandbox",outcome="failed_customer"})', 1);
    await until("sum(topup_supplier_attempt_duration_seconds_count)", 6);
    // Placements count in the web process only; settlements in the worker only.
    expect(await prometheus.value('sum(topup_orders_placed_total{job="topup-worker"})')).toBe(0);
    expect(await prometheus.value('sum(topup_orders_completed_total{job="topup-web"})')).toBe(0);

    // The dashboard overview's figures for the same orders, from its own reads.
    const overview = (await readOrderMetrics("24h")).totals;
    expect(overview).toMatchObject({ total: 7, completed: 5, cancelled: 1, refused: 1, processing: 0, pending: 0 });
    expect(await prometheus.value('sum(topup_orders_placed_total{mode="live"})')).toBe(overview.total);
    expect(await prometheus.value('sum(topup_orders_completed_total{mode="live"})')).toBe(overview.completed);
    expect(await prometheus.value('sum(topup_orders_cancelled_total{mode="live",stage="fulfilment"})')).toBe(
      overview.cancelled,
    );
    expect(await prometheus.value('sum(topup_orders_cancelled_total{mode="live",stage="placement"})')).toBe(
      overview.refused,
    );
    const liability = await readWalletLiability();
    await until("max(topup_wallet_liability_usd)", liability.totalCents / 100);
    expect(liability.totalCents).toBe(1000 - 6 * 99 + 99);
    const open = await countOpenOrders();
    expect(await prometheus.value('max(topup_orders_open{state="awaiting_admin"})')).toBe(open.awaitingAdmin);

    // Guessed keys from one address: past the network's failures, refusals with RATE_LIMIT.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await api("/balance", { key: `svc_${"G".repeat(39)}${i}` }, web!.baseUrl)).status);
    const refusals = statuses.filter((status) => status === 429).length;
    expect(refusals, String(statuses)).toBeGreaterThan(0);
    await until('sum(topup_rate_limit_refusals_total{scope="network"})', refusals);
    await until('sum(topup_http_requests_total{route="/balance",status="429"})', refusals);
  });

  it("are valid Prometheus text from every process, by promtool check metrics", async (ctx) => {
    if (missing) {
      console.warn(`SKIPPED: ${missing} is not installed here (Debian's prometheus package; .ci/run installs it)`);
      ctx.skip(`${missing} is not installed (apt-get install prometheus)`);
    }
    // The web process: /metrics with the token (refused without it), and its internal port.
    const refused = await fetch(`${web!.baseUrl}/metrics`, {
      headers: { authorization: "Bearer wrong-token-0000000" },
    });
    expect(refused.status).toBe(401);
    expect((await fetch(`${web!.baseUrl}/metrics`)).status).toBe(401);
    expectPromtoolPasses(
      await metricsText(`${web!.baseUrl}/metrics`, TEST_METRICS_TOKEN),
      "the web process's /metrics",
    );

    const internalWebPort = await startWithMetricsPort("serve.ts", {
      PORT: "0",
      HOST: "127.0.0.1",
      SERVE_DASHBOARD: "0",
      METRICS_PORT: "0",
    });
    const internal = await metricsText(`http://127.0.0.1:${internalWebPort}/metrics`);
    expect(internal).toContain("topup_queue_jobs{");
    expectPromtoolPasses(internal, "the web process's METRICS_PORT");

    const port = workerPort ?? (await startWithMetricsPort("worker.ts", { WORKER_METRICS_PORT: "0" }));
    const worker = await metricsText(`http://127.0.0.1:${port}/metrics`);
    expect(worker).toContain("process_cpu_seconds_total");
    // The service-wide gauges are the web process's alone.
    expect(worker).not.toContain("topup_wallet_liability_usd");
    expectPromtoolPasses(worker, "a worker's WORKER_METRICS_PORT");

    const fake = await FakeTelegram.start();
    try {
      const botPort = await startWithMetricsPort("bot.ts", {
        TELEGRAM_BOT_TOKEN: fake.token,
        TELEGRAM_API_ROOT: fake.apiRoot,
        BOT_METRICS_PORT: "0",
      });
      expectPromtoolPasses(await metricsText(`http://127.0.0.1:${botPort}/metrics`), "the bot's BOT_METRICS_PORT");
    } finally {
      for (const child of children.splice(-1)) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await fake.close();
    }
  });
});
