// A local H2H supplier over node:http that speaks the protocol written at the top of
// lib/suppliers/h2h-supplier.ts, so the real client is tested over real sockets.
//
// It checks signatures with its own HMAC code (not the client's), so a signing bug in the client
// cannot hide behind the same bug here; keeps top-ups by reference and counts deliveries, so a test
// can prove that nothing is delivered twice; and can be told to misbehave on the next request(s)
// to one route: answer late, hang, answer an HTTP error, answer garbage, or lose its answer.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeRoute = "place" | "check" | "verify" | "redeem";

export type FakeFault =
  /** Handle the request normally, then answer after `ms` (the top-up is placed before the wait). */
  | { kind: "delay"; ms: number }
  /** Never answer and do nothing: the request is swallowed (the order is not placed). */
  | { kind: "hang" }
  /** Answer this HTTP status and body without doing anything (e.g. 500, 503, 429, a 4xx refusal). */
  | { kind: "status"; httpStatus: number; body?: unknown }
  /** Handle the request normally, then answer 200 (or `httpStatus`) with this raw text instead of the real answer. */
  | { kind: "garbage"; body: string; httpStatus?: number }
  /** Handle the request normally, then destroy the socket before a byte of the answer is sent. */
  | { kind: "lose-answer" };

export interface FakeTopup {
  reference: string;
  request: Record<string, unknown>;
  status: "success" | "pending" | "failed";
  supplierRef: string;
  message?: string;
  /** Status checks still answered "pending" before the order settles. */
  checksBeforeSettling: number;
}

interface RecordedRequest {
  method: string;
  path: string;
  route: FakeRoute | "unrouted";
  signatureValid: boolean;
  body: string;
}

const SIGNATURE_MAX_AGE_SECONDS = 300;

export interface FakeH2hOptions {
  partnerId?: string;
  secret?: string;
  /** Serve under this path prefix (e.g. "/api"), to prove the client signs the full path. */
  pathPrefix?: string;
}

export async function startFakeH2hSupplier(options: FakeH2hOptions = {}) {
  const partnerId = options.partnerId ?? "partner-test";
  const secret = options.secret ?? "fake-h2h-secret";
  const pathPrefix = options.pathPrefix ?? "";

  const topups = new Map<string, FakeTopup>();
  const deliveries = new Map<string, number>();
  const players = new Map<string, string>();
  const codes = new Map<string, "unused" | "used">();
  const redemptions = new Map<string, Record<string, unknown>>();
  const faults: { route: FakeRoute; fault: FakeFault }[] = [];
  const standing = new Map<FakeRoute, FakeFault>();
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let checksBeforeSettling = 0;

  function deliver(reference: string): void {
    deliveries.set(reference, (deliveries.get(reference) ?? 0) + 1);
  }

  function placeTopup(body: Record<string, unknown>): FakeTopup {
    const reference = String(body.reference);
    const existing = topups.get(reference);
    if (existing) return existing; // deduplicated: the existing order's state, no second delivery
    const userId = typeof body.userId === "string" ? body.userId : "";
    const topup: FakeTopup = {
      reference,
      request: body,
      status: "success",
      supplierRef: `FAKE-${topups.size + 1}`,
      checksBeforeSettling: 0,
    };
    if (!players.has(userId)) Object.assign(topup, { status: "failed", message: "PLAYER NOT FOUND" });
    else if (checksBeforeSettling > 0) Object.assign(topup, { status: "pending", checksBeforeSettling });
    else deliver(reference);
    topups.set(reference, topup);
    return topup;
  }

  function checkTopup(reference: string): FakeTopup | undefined {
    const topup = topups.get(reference);
    if (topup?.status === "pending" && --topup.checksBeforeSettling <= 0) {
      topup.status = "success";
      deliver(reference);
    }
    return topup;
  }

  function redeem(body: Record<string, unknown>): Record<string, unknown> {
    const reference = String(body.reference);
    const previous = redemptions.get(reference);
    if (previous) return previous;
    const nickname = players.get(String(body.playerId));
    const code = String(body.code);
    let answer: Record<string, unknown>;
    if (nickname === undefined) answer = { status: "player_not_found" };
    else if (!codes.has(code)) answer = { status: "invalid_code" };
    else if (codes.get(code) === "used") answer = { status: "code_used" };
    else {
      codes.set(code, "used");
      answer = { status: "redeemed", nickname };
    }
    redemptions.set(reference, answer);
    return answer;
  }

  function topupAnswer(topup: FakeTopup) {
    return { status: topup.status, reference: topup.reference, supplierRef: topup.supplierRef, message: topup.message };
  }

  /** The route's normal work, and the answer a well-behaved supplier would send. */
  function handle(
    route: FakeRoute,
    path: string,
    body: Record<string, unknown>,
  ): { httpStatus: number; body: unknown } {
    switch (route) {
      case "place":
        return { httpStatus: 200, body: topupAnswer(placeTopup(body)) };
      case "check": {
        const topup = checkTopup(decodeURIComponent(path.slice("/v1/topups/".length)));
        return topup
          ? { httpStatus: 200, body: topupAnswer(topup) }
          : { httpStatus: 404, body: { error: "not found" } };
      }
      case "verify": {
        const nickname = players.get(String(body.playerId));
        return { httpStatus: 200, body: nickname === undefined ? { found: false } : { found: true, nickname } };
      }
      case "redeem":
        return { httpStatus: 200, body: redeem(body) };
    }
  }

  function signatureIsValid(request: IncomingMessage, rawPath: string, body: string): boolean {
    const timestamp = request.headers["x-timestamp"];
    const signature = request.headers["x-signature"];
    if (request.headers["x-partner-id"] !== partnerId) return false;
    if (typeof timestamp !== "string" || !/^\d+$/.test(timestamp)) return false;
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > SIGNATURE_MAX_AGE_SECONDS) return false;
    if (typeof signature !== "string") return false;
    const expected = createHmac("sha256", secret).update(`${timestamp}.${request.method}.${rawPath}.${body}`).digest();
    const given = Buffer.from(signature, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  function routeOf(method: string, path: string): FakeRoute | "unrouted" {
    if (method === "POST" && path === "/v1/topups") return "place";
    if (method === "GET" && /^\/v1\/topups\/[^/]+$/.test(path)) return "check";
    if (method === "POST" && path === "/v1/players/verify") return "verify";
    if (method === "POST" && path === "/v1/redeem") return "redeem";
    return "unrouted";
  }

  function sendJson(response: ServerResponse, httpStatus: number, body: unknown): void {
    response.writeHead(httpStatus, { "content-type": "application/json" }).end(JSON.stringify(body));
  }

  function later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  }

  async function onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const rawPath = request.url ?? "/";
    const method = request.method ?? "GET";
    const path = rawPath.startsWith(pathPrefix) ? rawPath.slice(pathPrefix.length) : "";
    const route = routeOf(method, path);
    const signatureValid = signatureIsValid(request, rawPath, body);
    requests.push({ method, path: rawPath, route, signatureValid, body });

    if (!signatureValid) return sendJson(response, 401, { error: "invalid signature" });
    if (route === "unrouted") return sendJson(response, 404, { error: "no such route" });
    let parsed: Record<string, unknown> = {};
    if (method === "POST") {
      try {
        parsed = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return sendJson(response, 400, { error: "invalid json" });
      }
    }

    const faultIndex = faults.findIndex((entry) => entry.route === route);
    const fault = faultIndex >= 0 ? faults.splice(faultIndex, 1)[0]!.fault : standing.get(route);
    if (fault?.kind === "hang") return; // the socket stays open until the client gives up or we close
    if (fault?.kind === "status") return sendJson(response, fault.httpStatus, fault.body ?? { error: "fault" });

    const answer = handle(route, path, parsed);
    if (fault?.kind === "lose-answer") return void request.socket.destroy();
    if (fault?.kind === "garbage") {
      response.writeHead(fault.httpStatus ?? 200, { "content-type": "application/json" }).end(fault.body);
      return;
    }
    if (fault?.kind === "delay") return later(fault.ms, () => sendJson(response, answer.httpStatus, answer.body));
    sendJson(response, answer.httpStatus, answer.body);
  }

  const server = createServer((request, response) => {
    onRequest(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    baseUrl: origin + pathPrefix,
    origin,
    partnerId,
    secret,
    requests,
    topups,
    /** How many times the goods for this reference were delivered (must never exceed 1). */
    deliveries: (reference: string) => deliveries.get(reference) ?? 0,
    totalDeliveries: () => [...deliveries.values()].reduce((sum, count) => sum + count, 0),
    addPlayer(playerId: string, nickname: string) {
      players.set(playerId, nickname);
    },
    addCode(code: string, state: "unused" | "used" = "unused") {
      codes.set(code, state);
    },
    /** Misbehave on the next `times` requests to `route`, then behave again. */
    failNext(route: FakeRoute, fault: FakeFault, times = 1) {
      for (let i = 0; i < times; i++) faults.push({ route, fault });
    },
    /** Misbehave on every request to `route` until told otherwise (`undefined`: behave again). */
    behave(route: FakeRoute, fault: FakeFault | undefined) {
      if (fault) standing.set(route, fault);
      else standing.delete(route);
    },
    /** Top-ups placed from now on answer pending, and settle (deliver) on the n-th status check. */
    settleAfterChecks(n: number) {
      checksBeforeSettling = n;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

export type FakeH2hSupplier = Awaited<ReturnType<typeof startFakeH2hSupplier>>;
