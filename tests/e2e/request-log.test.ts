// Every request to the web process leaves one JSON log line an operator can find by the request's
// id: the id the client sent in X-Request-Id (or a new one, given back in the answer), the route's
// pattern, the status, the latency, the account and the key's display prefix, never the key.
import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { api } from "../helpers/api";
import { createAccount } from "../helpers/fixtures";
import { useCleanDatabase } from "../helpers/clean-database";
import { jsonLogLines, parseLogLines } from "../helpers/process-logs";
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "@/lib/config/env";
import { startNextServer } from "../helpers/next-start";
import { TEST_ENV } from "../setup/test-env";
import { suiteDatabaseUrl, suiteServerLogFile } from "../helpers/suite";

useCleanDatabase();

/** The server's request line for `requestId`, once it has been written. */
async function requestLine(requestId: string): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await expect
    .poll(
      () => {
        found = jsonLogLines(suiteServerLogFile()).find((line) => line.reqId === requestId && line.msg === "request");
        return found !== undefined;
      },
      { timeout: 20_000, interval: 100, message: `a request line with reqId ${requestId}` },
    )
    .toBe(true);
  return found!;
}

describe("the request log", () => {
  it("has one line per request with its id, route, status, latency, account and key prefix", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const requestId = `log-test-${randomUUID()}`;
    const answer = await api("/orders/no-such-order", { key: account.key, headers: { "x-request-id": requestId } });
    expect(answer.status).toBe(404);
    expect(answer.headers.get("x-request-id")).toBe(requestId);

    const line = await requestLine(requestId);
    expect(line).toMatchObject({
      level: "info",
      process: "web",
      method: "GET",
      route: "/orders/:orderId",
      status: 404,
      code: "ORDER_NOT_FOUND",
      accountId: account.accountId,
      keyPrefix: account.keyPrefix,
    });
    expect(typeof line.latencyMs).toBe("number");
    expect(line.latencyMs as number).toBeGreaterThanOrEqual(0);
    expect(typeof line.time).toBe("string");
    const text = JSON.stringify(line);
    expect(text).not.toContain(account.key);
    expect(text).not.toContain("no-such-order");
    // Exactly one line for the request.
    const lines = jsonLogLines(suiteServerLogFile()).filter((entry) => entry.reqId === requestId);
    expect(lines).toHaveLength(1);
  });

  it("gives a request without a usable id a new one, in the answer and in its line", async () => {
    for (const sent of [undefined, "has spaces", "x".repeat(200), 'quote"and{brace}']) {
      const answer = await api(
        "/balance",
        sent === undefined ? {} : { headers: { "x-request-id": sent.replace("\n", "") } },
      );
      expect(answer.status).toBe(401);
      const given = answer.headers.get("x-request-id");
      expect(given).toMatch(/^[0-9a-f-]{36}$/);
      const line = await requestLine(given!);
      expect(line).toMatchObject({ route: "/balance", status: 401, code: "MISSING_API_KEY" });
      expect(line.accountId).toBeUndefined();
      expect(line.keyPrefix).toBeUndefined();
    }
  });

  it("names paths outside the route table by what answered them, never by the path", async () => {
    const requestId = `log-test-${randomUUID()}`;
    const answer = await api("/api/secret-looking/path", { headers: { "x-request-id": requestId } });
    expect(answer.status).toBe(404);
    expect(answer.headers.get("x-request-id")).toBe(requestId);
    // With a Next build the lean host hands the path to Next (logged at debug); without one it answers itself.
    const served = jsonLogLines(suiteServerLogFile()).find((line) => line.reqId === requestId);
    if (served) expect(JSON.stringify(served)).not.toContain("secret-looking");
  });

  it("is the same under next start for the public API", async (ctx) => {
    if (!fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"))) {
      console.warn("SKIPPED: the request log under next start needs a Next build (.next): run without SKIP_BUILD");
      ctx.skip("no Next build (.next): run without SKIP_BUILD");
    }
    const server = await startNextServer({ ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl() });
    try {
      // The first request after a start may find the peer-address stamp not yet installed (a 503
      // to retry: next-start-first-request.test.ts); this one is not the request under test.
      await expect.poll(async () => (await fetch(`${server.baseUrl}/healthz`)).status, { timeout: 30_000 }).toBe(200);
      const account = await createAccount({ balanceCents: 500 });
      const requestId = `log-test-next-${randomUUID()}`;
      const answer = await api(
        "/balance",
        { key: account.key, headers: { "x-request-id": requestId } },
        server.baseUrl,
      );
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-request-id")).toBe(requestId);
      let line: Record<string, unknown> | undefined;
      await expect
        .poll(() => (line = parseLogLines(server.output()).find((entry) => entry.reqId === requestId)), {
          timeout: 20_000,
          interval: 100,
        })
        .toBeDefined();
      expect(line).toMatchObject({
        process: "web",
        method: "GET",
        route: "/balance",
        status: 200,
        accountId: account.accountId,
        keyPrefix: account.keyPrefix,
      });
      expect(JSON.stringify(line)).not.toContain(account.key);
    } finally {
      await server.stop();
    }
  });
});
