// The two hosts of the one route table answer alike: the lean host (scripts/serve.ts, `npm start`,
// `npm run serve`) and `next start` (the route files under app/api), both real processes on free
// ports and one database. One table of requests covers every route and its errors; each request
// goes to both hosts, each host with its own accounts built the same way, and the answers must be
// equal in status, JSON body and the headers that matter.
//
// Normalised before comparing, because they legitimately differ per host or per moment:
// - public order ids (SVCAPI-...: they embed each host's own order's numeric id), numeric ids of
//   orders, ledger entries and redemptions (`id`, `redemptionId`, the CSV ledger's first column),
//   and ISO timestamps, in JSON bodies and in the CSV ledger;
// - the time parts of the rate-limit headers (`t=` in RateLimit, X-RateLimit-Reset) and the value
//   of Retry-After on a rate-limit refusal (seconds until a window moves, read at different
//   instants), which must still be a whole number of seconds >= 1 on both hosts;
// - the remaining count of the 1-second burst window (the sliding window weighs the previous
//   second's calls by how far into the current second a call lands), and on the main pair of
//   hosts, whose limits are a million, every remaining count (their minute windows roll over at
//   some point of the run). The limited pair (3 calls a minute) compares the minute window's
//   remaining counts exactly, and its case starts early in a minute so no rollover falls inside.
// Everything else must be identical.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setSwitch, type SwitchName } from "@/lib/settings/set-switch";
import { sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { startNextServer, type NextServer } from "../helpers/next-start";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteDatabaseUrl } from "../helpers/suite";

type Account = Awaited<ReturnType<typeof createAccount>>;

interface Fixtures {
  /** $50, used by most requests. */
  main: Account;
  /** The holder turned API access off. */
  disabled: Account;
  /** The key allows 203.0.113.0/24 only. */
  ipLocked: Account;
  /** Only for the rate-limit case. */
  limited: Account;
  /** Only for the switch cases. */
  switched: Account;
  /** Polls for a switch's state. */
  probe: Account;
}

interface Req {
  method?: string;
  path: string;
  /** Which fixture account's key to send as X-API-Key. */
  as?: keyof Fixtures;
  /** A literal key (malformed, unknown). */
  key?: string;
  headers?: Record<string, string>;
  json?: unknown;
  raw?: string;
  /** Send `raw` as a chunked stream (no Content-Length). */
  chunked?: boolean;
  status: number;
}

interface Case {
  name: string;
  /** "limited": the pair of hosts with low rate limits and TRUSTED_PROXIES=127.0.0.1. */
  pair?: "main" | "limited";
  switchOn?: SwitchName;
  requests: Req[];
}

const BAD_FORMAT = "svc_short";
const UNKNOWN_KEY = "svc_" + "Q".repeat(40);
// A statement range around the fixtures' entries, which are made during the run.
const STATEMENT_FROM = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const STATEMENT_TO = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
const br = (trxid: string, extra: Record<string, unknown> = {}) => ({
  pid: "SVCBR60",
  trxid,
  userId: "5123456",
  ...extra,
});

const cases: Case[] = [
  {
    name: "GET /services",
    requests: [
      { path: "/services", as: "main", status: 200 },
      { path: "/api/services", as: "main", status: 200 },
    ],
  },
  {
    name: "GET /products",
    requests: [
      { path: "/products", as: "main", status: 200 },
      { path: "/api/products", as: "main", status: 200 },
    ],
  },
  {
    name: "GET /products/{id} and ?updatedSince",
    requests: [
      { path: "/products/SVCBR60", as: "main", status: 200 },
      { path: "/api/products/SVCBR60", as: "main", status: 200 },
      { path: "/products/SVCBRNOSUCH", as: "main", status: 404 },
      { path: "/products?updatedSince=2026-01-15T00:00:00Z", as: "main", status: 200 },
      { path: "/products?updatedSince=soon", as: "main", status: 400 },
    ],
  },
  {
    name: "GET /catalog",
    requests: [
      { path: "/catalog", as: "main", status: 200 },
      { path: "/api/catalog", as: "main", status: 200 },
    ],
  },
  {
    name: "GET /balance, root, /api and Bearer",
    requests: [
      { path: "/balance", as: "main", status: 200 },
      { path: "/api/balance", as: "main", status: 200 },
      { path: "/balance/", as: "main", status: 200 },
      { path: "/balance?x=1", as: "main", status: 200 },
      { method: "HEAD", path: "/balance", as: "main", status: 200 },
    ],
  },
  {
    name: "POST /balance is not implemented",
    requests: [{ method: "POST", path: "/balance", as: "main", json: {}, status: 501 }],
  },
  {
    name: "GET /my-ip ignores a forged X-Forwarded-For from an untrusted peer",
    requests: [
      { path: "/my-ip", as: "main", status: 200 },
      { path: "/api/my-ip", as: "main", headers: { "x-forwarded-for": "203.0.113.9" }, status: 200 },
      { path: "/my-ip", as: "main", headers: { "x-topup-peer-address": "203.0.113.9" }, status: 200 },
    ],
  },
  {
    name: "GET /healthz, /openapi.json and /postman.json",
    requests: [
      { path: "/healthz", status: 200 },
      { path: "/openapi.json", status: 200 },
      { path: "/postman.json", status: 200 },
      { path: "/api/healthz", status: 404 },
    ],
  },
  {
    name: "authentication failures",
    requests: [
      { path: "/balance", status: 401 },
      { path: "/api/orders", method: "POST", json: br("auth-1"), status: 401 },
      { path: "/balance", key: BAD_FORMAT, status: 401 },
      { path: "/history", key: UNKNOWN_KEY, status: 401 },
      { path: "/balance", headers: { authorization: "Basic abc" }, status: 401 },
      { path: "/balance", headers: { authorization: `Bearer ${UNKNOWN_KEY}` }, status: 401 },
    ],
  },
  {
    name: "access refusals",
    requests: [
      { path: "/balance", as: "disabled", status: 403 },
      { path: "/orders", as: "disabled", json: br("access-1"), status: 403 },
      { path: "/balance", as: "ipLocked", status: 403 },
      { path: "/balance", as: "ipLocked", headers: { "x-forwarded-for": "203.0.113.9" }, status: 403 },
    ],
  },
  {
    name: "POST /orders: placement, idempotent replay, mismatch",
    requests: [
      { path: "/orders", as: "main", json: br("parity-1"), status: 200 },
      { path: "/orders", as: "main", json: br("parity-1"), status: 200 },
      { path: "/api/orders", as: "main", json: br("parity-1", { userId: "999" }), status: 409 },
      { path: "/orders", as: "main", json: { pid: "SVCGC10", quantity: 2, trxid: "parity-gc" }, status: 200 },
      // A chunked body within the limit is read as a stream (a declared length is read whole).
      {
        path: "/orders",
        as: "main",
        raw: JSON.stringify(br("parity-chunked")),
        chunked: true,
        headers: { "content-type": "application/json" },
        status: 200,
      },
      {
        path: "/orders",
        as: "main",
        raw: JSON.stringify(br("parity-chunked")),
        chunked: true,
        headers: { "content-type": "application/json" },
        status: 200,
      },
      { path: "/balance", as: "main", status: 200 },
    ],
  },
  {
    name: "POST /orders: validation",
    requests: [
      { path: "/orders", as: "main", json: {}, status: 400 },
      { path: "/orders", as: "main", json: { pid: "SVCBR61", trxid: "v-1", userId: "1" }, status: 400 },
      { path: "/orders", as: "main", json: br("v-2", { quantity: 1 }), status: 400 },
      {
        path: "/orders",
        as: "main",
        json: { pid: "SVCGA60", trxid: "v-3", userId: "1", serverId: "mars" },
        status: 400,
      },
      { path: "/orders", as: "main", json: [1, 2], status: 400 },
    ],
  },
  {
    name: "POST /orders: 401 malformed JSON, 413, 415",
    requests: [
      { path: "/orders", as: "main", raw: "{not json", headers: { "content-type": "application/json" }, status: 401 },
      {
        path: "/orders",
        as: "main",
        raw: JSON.stringify({ pid: "x", pad: "y".repeat(20_000) }),
        headers: { "content-type": "application/json" },
        status: 413,
      },
      {
        path: "/orders",
        as: "main",
        raw: "z".repeat(20_000),
        chunked: true,
        headers: { "content-type": "application/json" },
        status: 413,
      },
      {
        path: "/orders",
        as: "main",
        raw: "pid=SVCBR60",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        status: 415,
      },
      { path: "/rdmbr", as: "main", raw: "code=1", headers: { "content-type": "text/plain" }, status: 415 },
    ],
  },
  {
    name: "GET /orders/:orderId by trxid, unknown, odd encodings",
    requests: [
      { path: "/orders/parity-1", as: "main", status: 200 },
      { path: "/api/orders/parity-1", as: "main", status: 200 },
      { path: "/orders/no-such-order", as: "main", status: 404 },
      { path: "/orders/999999999", as: "main", status: 404 },
      { path: "/orders/a%20b", as: "main", status: 404 },
      { path: "/orders/parity-1?wait=abc", as: "main", status: 400 },
      { path: "/orders/no-such/deeper", as: "main", status: 404 },
    ],
  },
  {
    // Answers that do not change the order, so both hosts give the same.
    name: "POST /orders/:orderId/cancel and /refund-request",
    requests: [
      { method: "POST", path: "/orders/no-such-order/cancel", as: "main", status: 404 },
      { method: "POST", path: "/api/orders/parity-1/cancel?by=name", as: "main", status: 400 },
      { path: "/orders/parity-1/refund-request", as: "main", json: { reason: "parity" }, status: 409 },
      { path: "/orders/parity-1/refund-request", as: "main", json: {}, status: 400 },
      { method: "GET", path: "/orders/parity-1/cancel", as: "main", status: 405 },
    ],
  },
  {
    name: "GET /history and /ledger",
    requests: [
      { path: "/history", as: "main", status: 200 },
      { path: "/history?page=1&pageSize=1", as: "main", status: 200 },
      { path: "/history?limit=0", as: "main", status: 400 },
      { path: "/ledger", as: "main", status: 200 },
      { path: "/ledger?format=csv", as: "main", status: 200 },
      // The statement streams its body (a ReadableStream): both hosts must send it whole.
      { path: `/ledger?format=csv&from=${STATEMENT_FROM}&to=${STATEMENT_TO}`, as: "main", status: 200 },
      { path: `/ledger?format=csv&from=${STATEMENT_TO}&to=${STATEMENT_FROM}`, as: "main", status: 400 },
    ],
  },
  {
    name: "GET /events and POST /webhooks/replay",
    requests: [
      { path: "/events", as: "main", status: 200 },
      { path: "/events?after=-1", as: "main", status: 400 },
      { path: "/webhooks/replay", as: "main", json: {}, status: 400 },
      { path: "/webhooks/replay", as: "main", json: { after: 0 }, status: 200 },
    ],
  },
  {
    name: "verify and redeem",
    requests: [
      { path: "/brvvfy", as: "main", json: { userId: "5123456" }, status: 200 },
      { path: "/brvvfy", as: "main", json: { userId: "1404" }, status: 404 },
      { path: "/mobavfy", as: "main", json: { userId: "5123456", zoneId: "1234" }, status: 200 },
      { path: "/mobavfy", as: "main", json: {}, status: 400 },
      { path: "/rdmbr", as: "main", json: { userId: "5123456", code: "ABCD-1234" }, status: 200 },
      { path: "/rdmbr", as: "main", json: { userId: "5123456", code: "USED-1234" }, status: 409 },
      { path: "/rdmbr", as: "main", json: { userId: "5123456", code: "BAD-1234" }, status: 400 },
    ],
  },
  {
    name: "MAINTENANCE closes orders and redeems, not reads",
    switchOn: "MAINTENANCE",
    requests: [
      { path: "/orders", as: "switched", json: br("sw-1"), status: 503 },
      { path: "/rdmbr", as: "switched", json: { userId: "5123456", code: "ABCD-1234" }, status: 503 },
      { path: "/balance", as: "switched", status: 200 },
    ],
  },
  {
    name: "API_ORDER_DISABLED closes orders only",
    switchOn: "API_ORDER_DISABLED",
    requests: [
      { path: "/orders", as: "switched", json: br("sw-2"), status: 503 },
      { path: "/brvvfy", as: "switched", json: { userId: "5123456" }, status: 200 },
    ],
  },
  {
    name: "404 for unknown paths",
    requests: [
      { path: "/nope", status: 404 },
      { path: "/api/nope", status: 404 },
      { path: "/api/nope/deeper?x=1", method: "POST", json: {}, status: 404 },
      { path: "/api", status: 404 },
      { path: "/", status: 404 },
    ],
  },
  {
    name: "GET /favicon.ico: an icon, not the JSON 404",
    requests: [
      { path: "/favicon.ico", status: 200 },
      { method: "HEAD", path: "/favicon.ico", status: 200 },
      { method: "POST", path: "/favicon.ico", json: {}, status: 405 },
      { path: "/api/favicon.ico", status: 404 },
    ],
  },
  {
    name: "405 with Allow for methods the table does not define",
    requests: [
      { method: "DELETE", path: "/balance", as: "main", status: 405 },
      { method: "PUT", path: "/orders", status: 405 },
      { method: "PATCH", path: "/api/orders/parity-1", status: 405 },
      { method: "OPTIONS", path: "/balance", status: 405 },
      { method: "POST", path: "/healthz", json: {}, status: 405 },
      { method: "GET", path: "/rdmbr", status: 405 },
    ],
  },
  {
    name: "rate limit: the key's minute window, then 429 with Retry-After",
    pair: "limited",
    requests: [
      { path: "/balance", as: "limited", status: 200 },
      { path: "/api/balance", as: "limited", status: 200 },
      { path: "/balance", as: "limited", status: 200 },
      { path: "/balance", as: "limited", status: 429 },
      { path: "/orders", as: "limited", json: br("rl-1"), status: 429 },
    ],
  },
  {
    name: "failed authentications per client IP, behind a trusted proxy",
    pair: "limited",
    requests: [
      { path: "/balance", key: UNKNOWN_KEY, headers: { "x-forwarded-for": "198.51.100.23" }, status: 401 },
      { path: "/balance", key: UNKNOWN_KEY, headers: { "x-forwarded-for": "198.51.100.23" }, status: 401 },
      { path: "/balance", key: UNKNOWN_KEY, headers: { "x-forwarded-for": "198.51.100.23" }, status: 429 },
      { path: "/my-ip", as: "main", headers: { "x-forwarded-for": "198.51.100.24, 10.9.8.7" }, status: 200 },
      { path: "/my-ip", as: "main", headers: { "x-forwarded-for": "198.51.100.24" }, status: 200 },
    ],
  },
];

const RATE_HEADERS = [
  "ratelimit-policy",
  "ratelimit",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
];
const COMPARED_HEADERS = [
  "content-type",
  "content-disposition",
  "allow",
  "retry-after",
  "idempotent-replayed",
  "cache-control",
  ...RATE_HEADERS,
];
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)/g;
const ORDER_ID = /SVCAPI-[A-Z0-9]+-[A-Za-z0-9]+-[A-Za-z0-9_-]+/g;

function normaliseText(text: string): string {
  return text.replace(ISO_TIME, "<time>").replace(ORDER_ID, "<orderId>");
}

function normaliseJson(value: unknown, key = ""): unknown {
  if (typeof value === "string") return normaliseText(value);
  if (typeof value === "number" && /^(id|redemptionId)$/.test(key)) return "<id>";
  if (Array.isArray(value)) return value.map((item) => normaliseJson(item));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normaliseJson(v, k)]));
  }
  return value;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

async function send(baseUrl: string, req: Req, fixtures: Fixtures, exactMinuteCounts = false): Promise<Answer> {
  const headers: Record<string, string> = { ...req.headers };
  if (req.as) headers["x-api-key"] = fixtures[req.as].key;
  if (req.key) headers["x-api-key"] = req.key;
  let body: BodyInit | undefined = req.raw;
  if (req.json !== undefined) {
    body = JSON.stringify(req.json);
    headers["content-type"] ??= "application/json";
  }
  if (req.chunked && typeof body === "string") {
    const bytes = new TextEncoder().encode(body);
    body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 4096) controller.enqueue(bytes.slice(i, i + 4096));
        controller.close();
      },
    });
  }
  const response = await fetch(baseUrl + req.path, {
    method: req.method ?? (body !== undefined ? "POST" : "GET"),
    headers,
    body,
    redirect: "manual",
    ...(req.chunked ? { duplex: "half" } : {}),
  } as RequestInit);
  const text = await response.text();
  const answerHeaders: Record<string, string> = {};
  for (const name of COMPARED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) answerHeaders[name] = value;
  }
  if (answerHeaders.ratelimit) {
    answerHeaders.ratelimit = answerHeaders.ratelimit
      .replace(/;t=\d+/g, ";t=<s>")
      .replace(/"burst";r=\d+/, '"burst";r=<n>');
    if (!exactMinuteCounts)
      answerHeaders.ratelimit = answerHeaders.ratelimit.replace(/"minute";r=\d+/, '"minute";r=<n>');
  }
  if (answerHeaders["x-ratelimit-reset"]) answerHeaders["x-ratelimit-reset"] = "<s>";
  if (answerHeaders["x-ratelimit-remaining"] && !exactMinuteCounts) answerHeaders["x-ratelimit-remaining"] = "<n>";
  if (response.status === 429 && answerHeaders["retry-after"]) {
    const seconds = Number(answerHeaders["retry-after"]);
    answerHeaders["retry-after"] =
      Number.isInteger(seconds) && seconds >= 1 ? "<whole seconds>" : `invalid: ${seconds}`;
  }
  let parsed: unknown;
  try {
    parsed = normaliseJson(JSON.parse(text));
  } catch {
    parsed = { notJson: normaliseText(text).replace(/^"\d+",/gm, '"<id>",') };
  }
  return { status: response.status, headers: answerHeaders, body: parsed };
}

async function createFixtures(): Promise<Fixtures> {
  const main = await createAccount({ balanceCents: 5000 });
  const disabled = await createAccount({ apiEnabled: false });
  const ipLocked = await createAccount();
  await sql(`INSERT INTO ip_allow_entries (api_key_id, cidr) VALUES ($1, '203.0.113.0/24')`, [ipLocked.keyId]);
  const limited = await createAccount({ balanceCents: 1000 });
  const switched = await createAccount({ balanceCents: 1000 });
  const probe = await createAccount();
  return { main, disabled, ipLocked, limited, switched, probe };
}

interface Host {
  name: string;
  main: string;
  limited: string;
  fixtures: Fixtures;
}

const started: { lean: ChildProcess[]; next: NextServer[] } = { lean: [], next: [] };
const hosts: Host[] = [];

function serverEnv(limited: boolean, tag: string): Record<string, string | undefined> {
  return {
    ...TEST_ENV,
    DATABASE_URL: suiteDatabaseUrl(),
    // Each process counts on its own, so the same requests meet the same counts on both hosts.
    RATE_LIMIT_PREFIX: `rl-parity-${tag}-${process.pid}-${Date.now()}`,
    ...(limited
      ? {
          RATE_LIMIT_KEY_BURST: "100",
          RATE_LIMIT_KEY_PER_MINUTE: "3",
          RATE_LIMIT_AUTH_FAILURES: "2",
          TRUSTED_PROXIES: "127.0.0.1",
        }
      : {}),
  };
}

/** Waits until every host sees the switch in the wanted state (each caches settings for up to 1 s). */
async function awaitSwitch(on: boolean) {
  for (const host of hosts) {
    await expect
      .poll(
        async () =>
          (await send(host.main, { path: "/orders", as: "probe", json: {}, status: 0 }, host.fixtures)).status,
        {
          timeout: 15_000,
          interval: 200,
        },
      )
      .toBe(on ? 503 : 400);
  }
}

useCleanDatabase();
beforeAll(async () => {
  const [leanMain, leanLimited, nextMain, nextLimited] = await Promise.all([
    startServer({ ...serverEnv(false, "lean"), SERVE_DASHBOARD: "0" }),
    startServer({ ...serverEnv(true, "lean-limited"), SERVE_DASHBOARD: "0" }),
    startNextServer(serverEnv(false, "next")),
    startNextServer(serverEnv(true, "next-limited")),
  ]);
  started.lean.push(leanMain.child, leanLimited.child);
  started.next.push(nextMain, nextLimited);
  hosts.push({
    name: "lean host",
    main: leanMain.baseUrl,
    limited: leanLimited.baseUrl,
    fixtures: await createFixtures(),
  });
  hosts.push({
    name: "next start",
    main: nextMain.baseUrl,
    limited: nextLimited.baseUrl,
    fixtures: await createFixtures(),
  });
}, 180_000);

afterAll(async () => {
  await setSwitch("MAINTENANCE", false, "test").catch(() => undefined);
  await setSwitch("API_ORDER_DISABLED", false, "test").catch(() => undefined);
  for (const child of started.lean) child.kill("SIGTERM");
  await Promise.all(started.next.map((server) => server.stop()));
});

describe("the lean host and next start answer every request of the table alike", () => {
  it.each(cases)("$name", async (testCase) => {
    if (testCase.switchOn) {
      await setSwitch(testCase.switchOn, true, "test");
      await awaitSwitch(true);
    }
    const limited = testCase.pair === "limited";
    if (limited && new Date().getSeconds() > 45) {
      await new Promise((resolve) => setTimeout(resolve, (60 - new Date().getSeconds()) * 1000));
    }
    try {
      for (const req of testCase.requests) {
        const answers: Answer[] = [];
        for (const host of hosts)
          answers.push(await send(limited ? host.limited : host.main, req, host.fixtures, limited));
        const label = `${req.method ?? (req.json !== undefined || req.raw !== undefined ? "POST" : "GET")} ${req.path}`;
        expect(answers[0]!.status, `${label} on the lean host`).toBe(req.status);
        expect(answers[1], `${label}: next start differs from the lean host`).toEqual(answers[0]);
      }
    } finally {
      if (testCase.switchOn) {
        await setSwitch(testCase.switchOn, false, "test");
        await awaitSwitch(false);
      }
    }
  });
});

describe("every route of the table is in the parity table", () => {
  it("has a request for each path and method of the OpenAPI document and the operational routes", async () => {
    const document = (await (await fetch(hosts[0]!.main + "/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const covered = new Set(
      cases.flatMap((c) =>
        c.requests.map(
          (r) =>
            `${r.method ?? (r.json !== undefined || r.raw !== undefined ? "POST" : "GET")} ${
              r.path
                .split("?")[0]!
                .replace(/^\/api\//, "/")
                .replace(/\/$/, "") || "/"
            }`,
        ),
      ),
    );
    const wanted = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map(
        (method) => `${method.toUpperCase()} ${path.replace("{orderId}", "parity-1").replace("{id}", "SVCBR60")}`,
      ),
    );
    wanted.push("GET /healthz", "GET /openapi.json", "GET /postman.json");
    expect(wanted.filter((route) => !covered.has(route))).toEqual([]);
  });
});
