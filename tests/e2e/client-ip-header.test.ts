// CLIENT_IP_HEADER names the header a platform in front of the service sets to the client's
// address. With it, both hosts take the client address from that header; without it, or when the
// header holds no address, the TCP peer's address counts and the header is ignored.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../helpers/fixtures";
import { startNextServer, type NextServer } from "../helpers/next-start";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteBaseUrl, suiteDatabaseUrl } from "../helpers/suite";

useCleanDatabase();

let lean: { child: ChildProcess; baseUrl: string };
let next: NextServer;
let key: string;

beforeAll(async () => {
  const env = { ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl(), CLIENT_IP_HEADER: "X-Real-IP" };
  [lean, next] = await Promise.all([startServer({ ...env, SERVE_DASHBOARD: "0" }), startNextServer(env)]);
  key = (await createAccount({ balanceCents: 0 })).key;
});

afterAll(async () => {
  lean?.child.kill("SIGTERM");
  await next?.stop();
});

async function myIp(baseUrl: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${baseUrl}/my-ip`, { headers: { "x-api-key": key, ...headers } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { ip: string }).ip;
}

describe.each([
  ["the lean host", () => lean.baseUrl],
  ["next start", () => next.baseUrl],
])("%s with CLIENT_IP_HEADER=X-Real-IP", (_, baseUrl) => {
  it("takes the client address from that header", async () => {
    expect(await myIp(baseUrl(), { "x-real-ip": "203.0.113.5" })).toBe("203.0.113.5");
    expect(await myIp(baseUrl(), { "x-real-ip": "2001:db8::1" })).toBe("2001:db8::1");
  });

  it("falls back to the TCP peer when the header is missing or holds no address", async () => {
    expect(await myIp(baseUrl())).toBe("127.0.0.1");
    expect(await myIp(baseUrl(), { "x-real-ip": "not-an-address" })).toBe("127.0.0.1");
    // X-Forwarded-For from an untrusted peer is still ignored.
    expect(await myIp(baseUrl(), { "x-forwarded-for": "198.51.100.1" })).toBe("127.0.0.1");
  });
});

it("without CLIENT_IP_HEADER the header is ignored (the main test server)", async () => {
  expect(await myIp(suiteBaseUrl(), { "x-real-ip": "203.0.113.5" })).toBe("127.0.0.1");
});
