// The real H2H client against a local fake supplier over real sockets: every fault the protocol
// maps, and the promise that one reference is delivered at most once.
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createH2hSupplier } from "@/lib/suppliers/h2h-supplier";
import type { Supplier, TopupRequest } from "@/lib/suppliers/types";
import { startFakeH2hSupplier, type FakeH2hSupplier } from "../helpers/fake-h2h-supplier";

// The client's deadline. Every test that expects an answer shares it, so it must hold an ordinary
// answer on a starved machine: at 300 ms a plain success came back "no answer within 300 ms" in a
// full run beside two busy loops (load average 17 on 2 cores).
const TIMEOUT_MS = 1500;
// How late past the deadline a call may return on a busy 2-core machine.
const TIMEOUT_MARGIN_MS = 2500;

let fake: FakeH2hSupplier;
let h2h: Supplier;

beforeEach(async () => {
  fake = await startFakeH2hSupplier();
  fake.addPlayer("12345", "NightOwl");
  h2h = clientFor(fake);
});

afterEach(async () => {
  // Whatever the test did, every request our client sent must have carried a valid signature.
  expect(fake.requests.filter((request) => !request.signatureValid)).toEqual([]);
  await fake.close();
});

function clientFor(
  target: FakeH2hSupplier,
  overrides: Partial<{ baseUrl: string; partnerId: string; secret: string }> = {},
) {
  return createH2hSupplier({
    baseUrl: target.baseUrl,
    partnerId: target.partnerId,
    secret: target.secret,
    timeoutMs: TIMEOUT_MS,
    ...overrides,
  });
}

function topup(reference: string, userId = "12345"): TopupRequest {
  return { reference, sku: "BR-100", game: "br", userId };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

function expectBoundedByTimeout(ms: number): void {
  expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
  expect(ms).toBeLessThan(TIMEOUT_MS + TIMEOUT_MARGIN_MS);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("h2h placeTopup: answers", () => {
  it("success: delivered once, with the supplier's reference, and the documented body", async () => {
    expect(await h2h.placeTopup({ ...topup("ord-1"), zoneId: "2001" })).toEqual({
      status: "success",
      supplierRef: "FAKE-1",
    });
    expect(fake.deliveries("ord-1")).toBe(1);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: "POST", path: "/v1/topups", route: "place" });
    expect(JSON.parse(fake.requests[0]!.body)).toEqual({
      reference: "ord-1",
      sku: "BR-100",
      game: "br",
      userId: "12345",
      zoneId: "2001",
    });
  });

  it("failed: the supplier's own reason is kept, and whose side it is", async () => {
    // Without a `failure` field, a message about the player is the customer's side.
    expect(await h2h.placeTopup(topup("ord-2", "no-such-player"))).toEqual({
      status: "failed",
      reason: "PLAYER NOT FOUND",
      failure: "customer",
      supplierRef: "FAKE-1",
    });
    expect(fake.totalDeliveries()).toBe(0);
    // The supplier may say it in so many words, whatever its message.
    fake.failNext("place", {
      kind: "status",
      httpStatus: 200,
      body: { status: "failed", message: "PLAYER QUOTA OF THE DAY REACHED", failure: "supplier" },
    });
    expect(await h2h.placeTopup(topup("ord-2b"))).toEqual({
      status: "failed",
      reason: "PLAYER QUOTA OF THE DAY REACHED",
      failure: "supplier",
    });
  });

  it("pending, then success on a later check; delivered only when it settles", async () => {
    fake.settleAfterChecks(2);
    expect(await h2h.placeTopup(topup("ord-3"))).toEqual({ status: "pending", supplierRef: "FAKE-1" });
    expect(fake.deliveries("ord-3")).toBe(0);
    expect(await h2h.checkTopup("ord-3")).toMatchObject({ status: "pending" });
    expect(await h2h.checkTopup("ord-3")).toEqual({ status: "success", supplierRef: "FAKE-1" });
    expect(fake.deliveries("ord-3")).toBe(1);
  });

  it("a slow answer inside the deadline is still an answer", async () => {
    fake.failNext("place", { kind: "delay", ms: TIMEOUT_MS / 3 });
    expect(await h2h.placeTopup(topup("ord-4"))).toMatchObject({ status: "success" });
  });
});

describe("h2h placeTopup: faults are unknown, never guessed", () => {
  it("an answer later than H2H_TIMEOUT_MS: unknown within the deadline; the supplier did deliver", async () => {
    fake.failNext("place", { kind: "delay", ms: TIMEOUT_MS * 3 });
    const { value, ms } = await timed(() => h2h.placeTopup(topup("late-1")));
    expect(value).toEqual({ status: "unknown", reason: `no answer within ${TIMEOUT_MS} ms` });
    expectBoundedByTimeout(ms);
    expect(await h2h.checkTopup("late-1")).toMatchObject({ status: "success" });
  });

  it("a supplier that hangs: unknown within the deadline; it never placed it, so check says not_found", async () => {
    fake.failNext("place", { kind: "hang" });
    const { value, ms } = await timed(() => h2h.placeTopup(topup("hang-1")));
    expect(value).toMatchObject({ status: "unknown" });
    expectBoundedByTimeout(ms);
    expect(await h2h.checkTopup("hang-1")).toEqual({ status: "not_found" });
    expect(await h2h.placeTopup(topup("hang-1"))).toMatchObject({ status: "success" });
    expect(fake.deliveries("hang-1")).toBe(1);
  });

  it.each([500, 502, 503, 429])("HTTP %i: unknown, after exactly one request (no hidden retry)", async (httpStatus) => {
    fake.failNext("place", { kind: "status", httpStatus, body: { status: "failed", message: "do not trust me" } });
    expect(await h2h.placeTopup(topup("err-1"))).toEqual({
      status: "unknown",
      reason: `supplier answered HTTP ${httpStatus}`,
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.totalDeliveries()).toBe(0);
  });

  it("a 4xx that says failed in so many words is failed; any other 4xx, or a 404, is unknown", async () => {
    fake.failNext("place", { kind: "status", httpStatus: 422, body: { status: "failed", message: "UNKNOWN SKU" } });
    expect(await h2h.placeTopup(topup("4xx-1"))).toEqual({
      status: "failed",
      reason: "UNKNOWN SKU",
      failure: "supplier",
    });
    fake.failNext("place", { kind: "status", httpStatus: 400, body: { error: "bad request" } });
    expect(await h2h.placeTopup(topup("4xx-2"))).toMatchObject({ status: "unknown" });
    fake.failNext("place", { kind: "status", httpStatus: 404, body: { status: "failed" } });
    expect(await h2h.placeTopup(topup("4xx-3"))).toMatchObject({ status: "unknown" });
  });

  it.each([
    ["not JSON", "<html>502 Bad Gateway</html>"],
    ["JSON of the wrong shape", '{"status":"delivered"}'],
    ["JSON null", "null"],
    ["an answer about another reference", '{"status":"failed","reference":"someone-else"}'],
  ])("garbage (%s): unknown; the order went through, and checkTopup says so", async (_label, body) => {
    fake.failNext("place", { kind: "garbage", body });
    expect(await h2h.placeTopup(topup("junk-1"))).toMatchObject({ status: "unknown" });
    expect(await h2h.checkTopup("junk-1")).toMatchObject({ status: "success" });
    expect(fake.deliveries("junk-1")).toBe(1);
  });

  it("a lost answer (socket destroyed after processing): unknown, then checkTopup success, delivered once", async () => {
    fake.failNext("place", { kind: "lose-answer" });
    const lost = await h2h.placeTopup(topup("lost-1"));
    expect(lost.status).toBe("unknown");
    expect(lost).toMatchObject({ reason: expect.stringMatching(/^connection failed: /) });
    expect(await h2h.checkTopup("lost-1")).toEqual({ status: "success", supplierRef: "FAKE-1" });
    expect(await h2h.placeTopup(topup("lost-1"))).toEqual({ status: "success", supplierRef: "FAKE-1" });
    expect(fake.deliveries("lost-1")).toBe(1);
  });

  it("connection refused: unknown, at once", async () => {
    const closedPort = await unusedPort();
    const refused = clientFor(fake, { baseUrl: `http://127.0.0.1:${closedPort}` });
    const { value, ms } = await timed(() => refused.placeTopup(topup("refused-1")));
    expect(value).toEqual({ status: "unknown", reason: "connection failed: ECONNREFUSED" });
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(await refused.checkTopup("refused-1")).toMatchObject({ status: "unknown" });
  });
});

describe("h2h: one reference is delivered at most once", () => {
  it("a resubmission of the same reference answers the existing order", async () => {
    expect(await h2h.placeTopup(topup("dup-1"))).toMatchObject({ status: "success" });
    expect(await h2h.placeTopup(topup("dup-1"))).toMatchObject({ status: "success" });
    expect(fake.requests.filter((request) => request.route === "place")).toHaveLength(2);
    expect(fake.deliveries("dup-1")).toBe(1);
  });

  it("concurrent submissions of one reference: every one answered, one delivery", async () => {
    const answers = await Promise.all([1, 2, 3].map(() => h2h.placeTopup(topup("dup-2"))));
    expect(answers.map((answer) => answer.status)).toEqual(["success", "success", "success"]);
    expect(fake.deliveries("dup-2")).toBe(1);
  });

  it("the supplier answers twice (late to the first attempt, then to the resubmission): one delivery", async () => {
    fake.failNext("place", { kind: "delay", ms: TIMEOUT_MS + 100 });
    expect(await h2h.placeTopup(topup("dup-3"))).toMatchObject({ status: "unknown" });
    expect(await h2h.placeTopup(topup("dup-3"))).toMatchObject({ status: "success" });
    await sleep(150); // let the late answer to the first attempt go out too
    expect(fake.deliveries("dup-3")).toBe(1);
  });
});

describe("h2h checkTopup", () => {
  it("a reference the supplier never received is not_found", async () => {
    expect(await h2h.checkTopup("never-sent")).toEqual({ status: "not_found" });
  });

  it("a 404 that is not the supplier's JSON answer (a proxy's page) is unknown, never not_found", async () => {
    await h2h.placeTopup(topup("chk-proxy"));
    fake.failNext("check", { kind: "garbage", body: "<html>404 Not Found</html>", httpStatus: 404 });
    fake.failNext("check", { kind: "garbage", body: "", httpStatus: 404 });
    expect(await h2h.checkTopup("chk-proxy")).toMatchObject({ status: "unknown" });
    expect(await h2h.checkTopup("chk-proxy")).toMatchObject({ status: "unknown" });
    expect(await h2h.checkTopup("chk-proxy")).toMatchObject({ status: "success" });
  });

  it("reports a failed order as failed", async () => {
    await h2h.placeTopup(topup("chk-failed", "nobody"));
    expect(await h2h.checkTopup("chk-failed")).toMatchObject({ status: "failed", reason: "PLAYER NOT FOUND" });
  });

  it("percent-encodes the reference in the path, and signs the encoded path", async () => {
    const reference = "SVCAPI-BR/1 x?y#z%";
    await h2h.placeTopup(topup(reference));
    expect(await h2h.checkTopup(reference)).toMatchObject({ status: "success" });
    expect(fake.requests.at(-1)?.path).toBe(`/v1/topups/${encodeURIComponent(reference)}`);
  });

  it.each([
    ["HTTP 500", { kind: "status", httpStatus: 500 }],
    ["HTTP 429", { kind: "status", httpStatus: 429 }],
    ["non-JSON", { kind: "garbage", body: "oops" }],
    ["the wrong shape", { kind: "garbage", body: '{"state":"done"}' }],
    ["a lost answer", { kind: "lose-answer" }],
  ] as const)("%s: unknown", async (_label, fault) => {
    await h2h.placeTopup(topup("chk-1"));
    fake.failNext("check", fault);
    expect(await h2h.checkTopup("chk-1")).toMatchObject({ status: "unknown" });
  });

  it("a hanging check: unknown within the deadline", async () => {
    fake.failNext("check", { kind: "hang" });
    const { value, ms } = await timed(() => h2h.checkTopup("chk-2"));
    expect(value).toMatchObject({ status: "unknown" });
    expectBoundedByTimeout(ms);
  });
});

describe("h2h verifyPlayer", () => {
  it("found with the nickname, or not_found; zoneId is sent only when given", async () => {
    expect(await h2h.verifyPlayer({ game: "br", playerId: "12345" })).toEqual({
      status: "found",
      nickname: "NightOwl",
    });
    expect(JSON.parse(fake.requests[0]!.body)).toEqual({ game: "br", playerId: "12345" });
    expect(await h2h.verifyPlayer({ game: "moba", playerId: "777", zoneId: "2001" })).toEqual({ status: "not_found" });
    expect(JSON.parse(fake.requests[1]!.body)).toEqual({ game: "moba", playerId: "777", zoneId: "2001" });
  });

  it.each([
    ["HTTP 503", { kind: "status", httpStatus: 503 }],
    ["HTTP 400", { kind: "status", httpStatus: 400 }],
    ["non-JSON", { kind: "garbage", body: "<html>" }],
    ["found without a nickname", { kind: "garbage", body: '{"found":true}' }],
    ["a lost answer", { kind: "lose-answer" }],
  ] as const)("%s: unavailable", async (_label, fault) => {
    fake.failNext("verify", fault);
    expect(await h2h.verifyPlayer({ game: "br", playerId: "12345" })).toMatchObject({ status: "unavailable" });
  });

  it("a hanging verify: unavailable within the deadline", async () => {
    fake.failNext("verify", { kind: "hang" });
    const { value, ms } = await timed(() => h2h.verifyPlayer({ game: "br", playerId: "12345" }));
    expect(value).toEqual({ status: "unavailable", reason: `no answer within ${TIMEOUT_MS} ms` });
    expectBoundedByTimeout(ms);
  });
});

describe("h2h redeemCode", () => {
  beforeEach(() => {
    fake.addCode("AAAA-BBBB-CCCC");
    fake.addCode("USED-0000-0000", "used");
  });

  it("maps every answer: redeemed with nickname, code_used, invalid_code, player_not_found", async () => {
    const redeem = (reference: string, code: string, playerId = "12345") =>
      h2h.redeemCode({ reference, playerId, code });
    expect(await redeem("rd-1", "AAAA-BBBB-CCCC")).toEqual({ status: "redeemed", nickname: "NightOwl" });
    expect(JSON.parse(fake.requests[0]!.body)).toEqual({
      reference: "rd-1",
      playerId: "12345",
      code: "AAAA-BBBB-CCCC",
    });
    expect(await redeem("rd-1", "AAAA-BBBB-CCCC")).toEqual({ status: "redeemed", nickname: "NightOwl" });
    expect(await redeem("rd-2", "AAAA-BBBB-CCCC")).toEqual({ status: "code_used" });
    expect(await redeem("rd-3", "USED-0000-0000")).toEqual({ status: "code_used" });
    expect(await redeem("rd-4", "NOPE-NOPE-NOPE")).toEqual({ status: "invalid_code" });
    expect(await redeem("rd-5", "AAAA-BBBB-CCCC", "ghost")).toEqual({ status: "player_not_found" });
  });

  it.each([
    ["HTTP 500", { kind: "status", httpStatus: 500 }],
    ["an unknown status", { kind: "garbage", body: '{"status":"maybe"}' }],
    ["a hang", { kind: "hang" }],
  ] as const)("%s: unavailable", async (_label, fault) => {
    fake.failNext("redeem", fault);
    expect(await h2h.redeemCode({ reference: "rd-x", playerId: "12345", code: "AAAA-BBBB-CCCC" })).toMatchObject({
      status: "unavailable",
    });
  });
});

describe("h2h signing", () => {
  it("the fake rejects a client with the wrong secret or partner id: nothing is delivered", async () => {
    for (const wrong of [
      clientFor(fake, { secret: "not-the-secret" }),
      clientFor(fake, { partnerId: "someone-else" }),
    ]) {
      expect(await wrong.placeTopup(topup("sig-1"))).toEqual({
        status: "unknown",
        reason: "supplier answered HTTP 401",
      });
      expect(await wrong.verifyPlayer({ game: "br", playerId: "12345" })).toMatchObject({ status: "unavailable" });
    }
    expect(fake.requests.map((request) => request.signatureValid)).toEqual([false, false, false, false]);
    expect(fake.totalDeliveries()).toBe(0);
    fake.requests.length = 0; // the afterEach check is about the correctly configured client
  });

  it.each(["/api", "/api/"])("signs the full path when the base URL has a prefix (%s)", async (suffix) => {
    const prefixed = await startFakeH2hSupplier({ pathPrefix: "/api" });
    try {
      prefixed.addPlayer("12345", "NightOwl");
      const client = clientFor(prefixed, { baseUrl: prefixed.origin + suffix });
      expect(await client.placeTopup(topup("pre-1"))).toMatchObject({ status: "success" });
      expect(await client.checkTopup("pre-1")).toMatchObject({ status: "success" });
      expect(prefixed.requests.map((request) => [request.path, request.signatureValid])).toEqual([
        ["/api/v1/topups", true],
        ["/api/v1/topups/pre-1", true],
      ]);
    } finally {
      await prefixed.close();
    }
  });
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
