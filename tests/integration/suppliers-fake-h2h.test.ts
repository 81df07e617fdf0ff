// The fake H2H supplier checks every part of the signature. Without this, "the client's requests
// pass the fake" would prove nothing about how the client signs.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeH2hSupplier, type FakeH2hSupplier } from "../helpers/fake-h2h-supplier";

let fake: FakeH2hSupplier;

beforeAll(async () => {
  fake = await startFakeH2hSupplier();
  fake.addPlayer("12345", "NightOwl");
});
afterAll(() => fake.close());

interface Signed {
  method?: string;
  path?: string;
  body?: string;
  timestamp?: number;
  /** What is signed, when it should differ from what is sent. */
  signed?: Partial<{ method: string; path: string; body: string; secret: string }>;
  partnerId?: string;
}

async function send(request: Signed): Promise<number> {
  const method = request.method ?? "POST";
  const path = request.path ?? "/v1/players/verify";
  const body = request.body ?? '{"game":"br","playerId":"12345"}';
  const timestamp = String(request.timestamp ?? Math.floor(Date.now() / 1000));
  const signed = { method, path, body, secret: fake.secret, ...request.signed };
  const signature = createHmac("sha256", signed.secret)
    .update(`${timestamp}.${signed.method}.${signed.path}.${signed.body}`)
    .digest("hex");
  const response = await fetch(fake.origin + path, {
    method,
    headers: {
      "x-partner-id": request.partnerId ?? fake.partnerId,
      "x-timestamp": timestamp,
      "x-signature": signature,
    },
    body: method === "GET" ? undefined : body,
  });
  await response.arrayBuffer();
  return response.status;
}

describe("fake H2H supplier signature check", () => {
  it("accepts a correctly signed request", async () => {
    expect(await send({})).toBe(200);
    expect(await send({ method: "GET", path: "/v1/topups/nothing", body: "" })).toBe(404);
  });

  it.each<[string, Signed]>([
    ["another body", { signed: { body: '{"game":"br","playerId":"99999"}' } }],
    ["another path", { signed: { path: "/v1/redeem" } }],
    ["another method", { signed: { method: "PUT" } }],
    ["another secret", { signed: { secret: "guess" } }],
    ["another partner", { partnerId: "intruder" }],
    ["a timestamp ten minutes old", { timestamp: Math.floor(Date.now() / 1000) - 600 }],
  ])("rejects a signature over %s with 401", async (_label, request) => {
    expect(await send(request)).toBe(401);
  });

  it("rejects a request without a signature", async () => {
    const response = await fetch(`${fake.origin}/v1/players/verify`, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "invalid signature" });
  });
});
