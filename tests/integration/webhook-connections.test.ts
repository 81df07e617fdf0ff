// The kept-alive connections of webhook deliveries and supplier calls (lib/webhooks/send-webhook.ts),
// over real HTTP to a local receiver: making room for new destinations never cuts a request in flight.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFor, sendWebhook } from "@/lib/webhooks/send-webhook";

const LOOPBACK = { address: "127.0.0.1", family: 4 } as const;
let server: http.Server;
let port: number;
let release: () => void = () => undefined;

beforeAll(async () => {
  // Answers once the test says so: the request is surely in flight meanwhile.
  server = http.createServer((request, response) => {
    request.resume();
    release = () => response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("connections kept per destination", () => {
  it("a delivery in flight to the oldest destination finishes when 500 newer ones push it out", async () => {
    const requested = new Promise<void>((resolve) => server.once("request", () => resolve()));
    const sending = sendWebhook({
      url: new URL(`http://slow-receiver.test:${port}/hook`),
      pinned: LOOPBACK,
      headers: { "content-type": "application/json" },
      body: "{}",
      timeoutMs: 30_000,
    });
    await requested;
    for (let i = 0; i < 500; i++) agentFor(new URL(`http://receiver-${i}.test:${port}/hook`), LOOPBACK);
    release();
    expect(await sending).toMatchObject({ httpStatus: 200, responseBody: "ok" });
  });
});
