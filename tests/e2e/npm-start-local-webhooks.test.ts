// `WEBHOOKS_ALLOW_PRIVATE=1 npm start`, as docs/webhooks.md tells a developer with a receiver on
// their own machine, after a build: the API and the dashboard serve, orders complete, and an order's
// webhook reaches the receiver on 127.0.0.1. Loading Next in the web process rewrites its NODE_ENV
// to production, which must not make the service refuse its development switch
// (lib/config/given-node-env.ts); with NODE_ENV=production given, `npm start` still refuses it.
// CI also runs this file under Node 24 (.ci/run).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { MIN_PRODUCTION_SECRET_LENGTH, SECRET_NAMES } from "@/lib/config/secrets";
import { BotConsole } from "../helpers/bot-console";
import { assertNextBuilt } from "../helpers/next-start";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { keepOutput } from "../helpers/process-logs";
import { suiteDatabaseUrl } from "../helpers/suite";

const DATABASE = `local_webhooks_${process.pid}`;
const HOLDER = { id: 820_001, username: "local_hooks" };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-local-webhooks-"));
let databaseUrl = "";
let receiver: WebhookReceiver;
let npm: ChildProcess | undefined;
let output = "";
const consoles: BotConsole[] = [];

const serverUrl = (database: string) => {
  const url = new URL(suiteDatabaseUrl());
  url.pathname = `/${database}`;
  return url.toString();
};

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl("postgres") });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** As a developer's shell has it: no NODE_ENV and no secret, the switch on. */
function developmentEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    WEBHOOKS_ALLOW_PRIVATE: "1",
  };
  for (const name of ["NODE_ENV", "TELEGRAM_BOT_TOKEN", ...SECRET_NAMES]) delete env[name];
  return env;
}

function startNpm(env: NodeJS.ProcessEnv): ChildProcess {
  output = "";
  const child = spawn("npm", ["start"], { cwd: projectRoot, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  keepOutput("npm-start", child);
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  return child;
}

async function placeOrder(base: string, key: string, trxid: string): Promise<{ orderId: string }> {
  const answer = await fetch(`${base}/orders`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ pid: "SVCBR60", trxid, userId: "5100" }),
  });
  const body = await answer.json();
  expect(answer.status, JSON.stringify(body)).toBe(200);
  return body;
}

async function getOrder(base: string, key: string, orderId: string): Promise<{ status: string }> {
  return (await fetch(`${base}/orders/${orderId}`, { headers: { "x-api-key": key } })).json();
}

const exitOf = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

beforeAll(async () => {
  assertNextBuilt();
  await onServer(`drop database if exists ${DATABASE}`);
  await onServer(`create database ${DATABASE}`);
  databaseUrl = serverUrl(DATABASE);
  receiver = await WebhookReceiver.start();
});

afterAll(async () => {
  for (const opened of consoles) if (opened.child.exitCode === null) opened.child.kill("SIGTERM");
  if (npm && npm.exitCode === null && npm.signalCode === null) {
    const exited = exitOf(npm);
    process.kill(-npm.pid!, "SIGTERM");
    await exited;
  }
  await receiver?.close();
  await onServer(`drop database if exists ${DATABASE} with (force)`);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("WEBHOOKS_ALLOW_PRIVATE=1 npm start", () => {
  it("in development, built: serves the API and the dashboard, completes orders, and an order's webhook reaches a local receiver", async () => {
    npm = startNpm(developmentEnv());
    // A start after a source change builds the dashboard (next build) before it serves.
    await expect
      .poll(() => output.includes("Press Ctrl-C") || npm!.exitCode !== null, { timeout: 540_000, interval: 250 })
      .toBe(true);
    expect(npm.exitCode, `npm start stopped:\n${output}`).toBeNull();
    const base = output.match(/API:\s+(http:\/\/localhost:\d+)/)![1]!.replace("localhost", "127.0.0.1");

    const demoKey = output.match(/Demo key:\s+(svc_[A-Za-z0-9]{40})/)?.[1];
    expect(demoKey, output).toBeDefined();
    expect(await (await fetch(`${base}/healthz`)).json()).toMatchObject({ ok: true });
    const login = await fetch(`${base}/admin/login`);
    expect(login.status).toBe(200);
    expect(login.headers.get("content-type")).toContain("text/html");
    expect(await login.text()).toContain("Sign in");

    const holder = new BotConsole(["--as", String(HOLDER.id), "--username", HOLDER.username], developmentEnv());
    consoles.push(holder);
    await holder.type("/start", "/help lists every command.");
    await holder.type("/api on", "on");
    const issued = await holder.type("/newkey test", "Delete this message once the key is stored safely.");
    const testKey = issued.match(/svc_test_[A-Za-z0-9]{40}/)?.[0];
    expect(testKey, issued).toBeDefined();
    await holder.type("/testcredit 50", "test balance");
    const added = await holder.type(`/webhook add ${receiver.url} test`, /whsec_[A-Za-z0-9+/=]+/);
    const secret = added.match(/whsec_[A-Za-z0-9+/=]+/)![0];
    expect(await holder.leave()).toBe(0);

    // The demo key's live order, and the holder's test order whose outcome is pushed to the receiver.
    const live = await placeOrder(base, demoKey!, "local-live-1");
    await expect
      .poll(async () => (await getOrder(base, demoKey!, live.orderId)).status, { timeout: 60_000, interval: 250 })
      .toBe("completed");
    const order = await placeOrder(base, testKey!, "local-hook-1");

    await expect
      .poll(() => receiver.received.map((hook) => JSON.parse(hook.body).type), { timeout: 60_000, interval: 250 })
      .toContain("order.completed");
    const delivered = receiver.received.find((hook) => JSON.parse(hook.body).type === "order.completed")!;
    const event = new Webhook(secret).verify(delivered.body, delivered.headers) as {
      livemode: boolean;
      data: { orderId: string; status: string };
    };
    expect(event).toMatchObject({ livemode: false, data: { orderId: order.orderId, status: "completed" } });
    expect(output).not.toContain("failed to start");
  }, 720_000);

  it("with NODE_ENV=production (secrets set) is refused before it serves, naming the switch", async () => {
    const env: NodeJS.ProcessEnv = { ...developmentEnv(), NODE_ENV: "production" };
    for (const name of SECRET_NAMES) env[name] = "s".repeat(MIN_PRODUCTION_SECRET_LENGTH);
    const refused = startNpm(env);
    expect(await exitOf(refused), output).not.toBe(0);
    expect(output).toContain("Refusing to start in production with WEBHOOKS_ALLOW_PRIVATE=1");
    expect(output).not.toContain("API:");
  }, 540_000);
});
