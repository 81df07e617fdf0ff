// The SDK's pure parts: when it retries and how long it waits, what it never resends, the error
// it builds from an answer, and webhook verification. (Over real HTTP against the service:
// tests/integration/sdk-client.test.ts.)
import { describe, expect, expectTypeOf, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { createRetryingFetch, isReplaySafe, parseRateLimitWait, serverRequestedDelay } from "../../sdk/src/retry";
import { errorFromResponse, TopupApiError, type TopupErrorCode } from "../../sdk/src/errors";
import { ERROR_CODES, verifyWebhook, type ErrorCode } from "../../sdk/src/index";

interface Seen {
  method: string;
  body: string;
}

/** A fetch that answers from a script, recording what each attempt sent; no real waiting. */
function scripted(answers: (() => Response)[]) {
  const seen: Seen[] = [];
  const delays: number[] = [];
  let clock = 0;
  const retrying = (options: Parameters<typeof createRetryingFetch>[0] = {}) =>
    createRetryingFetch({
      fetch: async (input) => {
        const request = input as Request;
        seen.push({ method: request.method, body: await request.text() });
        const next = answers.shift();
        if (!next) throw new Error("script ran out");
        return next();
      },
      now: () => clock,
      sleep: async (ms) => {
        delays.push(ms);
        clock += ms;
      },
      ...options,
    });
  return { seen, delays, retrying };
}

const order = () =>
  new Request("http://api.test/orders", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ pid: "SVCBR60", trxid: "t-1" }),
  });
const lost = () => {
  throw new TypeError("fetch failed", { cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }) });
};
const status =
  (code: number, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify({ success: false }), { status: code, headers });

describe("retries", () => {
  it("resends POST /orders byte for byte after a lost answer and a 503, honouring Retry-After", async () => {
    const { seen, delays, retrying } = scripted([
      lost,
      status(503, { "retry-after": "2" }),
      () => new Response("{}", { status: 200 }),
    ]);
    const response = await retrying()(order());
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.body))).toEqual(new Set([JSON.stringify({ pid: "SVCBR60", trxid: "t-1" })]));
    expect(delays[1]).toBe(2000);
  });

  it("waits for the exhausted RateLimit window on a 429 without Retry-After", async () => {
    const { delays, retrying } = scripted([
      status(429, { ratelimit: '"burst";r=0;t=1, "minute";r=0;t=7' }),
      () => new Response("{}"),
    ]);
    await retrying()(new Request("http://api.test/balance"));
    expect(delays).toEqual([7000]);
  });

  it("does not resend a request that is not safe to repeat after a lost answer", async () => {
    const replay = new Request("http://api.test/webhooks/replay", {
      method: "POST",
      body: JSON.stringify({ after: 0 }),
    });
    const { seen, retrying } = scripted([lost, () => new Response("{}")]);
    const error = await retrying()(replay).catch((e) => e);
    expect(error).toBeInstanceOf(TopupApiError);
    expect(error.code).toBe("NETWORK_ERROR");
    expect(error.message).toContain("ECONNRESET");
    expect(seen).toHaveLength(1);
  });

  it("stops within the total time budget and hands back the last answer", async () => {
    const answers = Array.from({ length: 20 }, () => status(503, { "retry-after": "4" }));
    const { seen, delays, retrying } = scripted(answers);
    const response = await retrying({ maxAttempts: 20, maxElapsedMs: 10_000 })(new Request("http://api.test/balance"));
    expect(response.status).toBe(503);
    expect(delays).toEqual([4000, 4000]);
    expect(seen).toHaveLength(3);
  });

  it("stops after maxAttempts", async () => {
    const { seen, retrying } = scripted([lost, lost, lost]);
    await expect(retrying({ maxAttempts: 3 })(new Request("http://api.test/products"))).rejects.toMatchObject({
      code: "NETWORK_ERROR",
    });
    expect(seen).toHaveLength(3);
  });

  it("does not wait out a Retry-After longer than maxDelayMs", async () => {
    const { seen, retrying } = scripted([status(503, { "retry-after": "3600" })]);
    expect((await retrying()(new Request("http://api.test/balance"))).status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  it("knows which requests are safe to repeat", () => {
    expect(isReplaySafe("GET", "/history", undefined)).toBe(true);
    expect(isReplaySafe("POST", "/api/orders", "{}")).toBe(true);
    expect(isReplaySafe("POST", "/rdmbr", JSON.stringify({ code: "A-B", trxid: "r1" }))).toBe(true);
    expect(isReplaySafe("POST", "/rdmbr", JSON.stringify({ code: "A-B" }))).toBe(false);
    expect(isReplaySafe("POST", "/webhooks/replay", "{}")).toBe(false);
  });

  it("reads Retry-After as seconds or a date, and RateLimit's empty windows", () => {
    expect(parseRateLimitWait('"burst";r=3;t=1, "minute";r=70;t=30')).toBeUndefined();
    expect(parseRateLimitWait('"burst";r=0;t=1, "minute";r=70;t=30')).toBe(1000);
    const at = Date.parse("2030-01-01T00:00:00Z");
    const dated = new Response(null, { status: 503, headers: { "retry-after": new Date(at + 5000).toUTCString() } });
    expect(serverRequestedDelay(dated, at)).toBe(5000);
  });
});

describe("errors", () => {
  it("carries the API's code, status and retryability from the error reference", () => {
    const error = errorFromResponse(new Response(null, { status: 429, headers: { "retry-after": "3" } }), {
      success: false,
      error: "TOO MANY REQUESTS",
      code: "RATE_LIMIT",
    });
    expect(error).toMatchObject({
      code: "RATE_LIMIT",
      status: 429,
      retryable: true,
      retryAfterMs: 3000,
      message: "TOO MANY REQUESTS",
    });
    expect(
      errorFromResponse(new Response(null, { status: 400 }), {
        success: false,
        error: "UNKNOWN PID",
        code: "UNKNOWN_PID",
      }).retryable,
    ).toBe(false);
  });

  it("calls an answer without an API error body UNEXPECTED_RESPONSE", () => {
    expect(errorFromResponse(new Response(null, { status: 502 }), "<html>bad gateway</html>")).toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      status: 502,
      retryable: true,
    });
  });

  it("types code as the catalogue's codes plus the client's own, so a switch can be exhaustive", () => {
    expectTypeOf<TopupApiError["code"]>().toEqualTypeOf<TopupErrorCode>();
    // A finite union of literals, not string: what makes `const unhandled: never = error.code` compile only when every case is handled.
    expectTypeOf<string extends TopupErrorCode ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<"UNKNOWN_PID" | "RATE_LIMIT" | "INSUFFICIENT_STOCK">().toExtend<ErrorCode>();
    expect(ERROR_CODES.DUPLICATE_IN_FLIGHT).toEqual({ status: 429, retryable: true });
  });
});

describe("verifyWebhook", () => {
  const secret = `whsec_${Buffer.from("a-test-secret-of-32-bytes-length").toString("base64")}`;
  const body = JSON.stringify({
    type: "endpoint.test",
    timestamp: new Date().toISOString(),
    data: { endpointId: 1, url: "https://x.test", message: "hi" },
  });
  const sign = (timestamp: Date) => {
    const id = "evt_test1";
    const signature = new Webhook(secret).sign(id, timestamp, body);
    return {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": signature,
    };
  };

  it("returns the typed event for a good signature, from a plain record or Headers", () => {
    const headers = sign(new Date());
    expect(verifyWebhook(body, headers, secret).type).toBe("endpoint.test");
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), secret).type).toBe("endpoint.test");
  });

  it("throws WEBHOOK_VERIFICATION_FAILED for a changed body or a stale timestamp", () => {
    const headers = sign(new Date());
    expect(() => verifyWebhook(body.replace("hi", "ho"), headers, secret)).toThrow(
      expect.objectContaining({ code: "WEBHOOK_VERIFICATION_FAILED" }),
    );
    expect(() => verifyWebhook(body, sign(new Date(Date.now() - 10 * 60_000)), secret)).toThrow(
      expect.objectContaining({ code: "WEBHOOK_VERIFICATION_FAILED" }),
    );
  });
});

describe("the package", () => {
  it("imports nothing from outside sdk/ but its declared dependencies, so it builds on its own", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const sdk = path.resolve(import.meta.dirname, "../../sdk");
    const declared = Object.keys(JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8")).dependencies);
    const sources = fs
      .readdirSync(path.join(sdk, "src"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"));
    for (const file of sources) {
      const text = fs.readFileSync(path.join(sdk, "src", file), "utf8");
      for (const [, specifier = ""] of text.matchAll(/from "([^"]+)"/g)) {
        if (specifier.startsWith(".")) {
          // NodeNext ESM: relative imports name the emitted .js file, inside src/.
          expect(specifier, `${file}`).toMatch(/\.js$/);
          expect(
            path.resolve(path.dirname(path.join(sdk, "src", file)), specifier).startsWith(path.join(sdk, "src")),
            `${file}: ${specifier}`,
          ).toBe(true);
        } else {
          expect(declared, `${file} imports ${specifier}`).toContain(specifier);
        }
      }
    }
    expect(sources.length).toBeGreaterThan(4);
    // The repository runs the sdk on the root's node_modules: the same pinned versions.
    const root = JSON.parse(fs.readFileSync(path.join(sdk, "..", "package.json"), "utf8"));
    const sdkDependencies = JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8")).dependencies;
    for (const name of declared)
      expect(root.dependencies[name] ?? root.devDependencies[name], name).toBe(sdkDependencies[name]);
  });
});

describe("the client's method names", () => {
  it("are the operationIds of the OpenAPI document (POST /balance, always 501, has no method)", async () => {
    const { createClient } = await import("../../sdk/src/index");
    const { buildOpenApiDocument } = await import("@/lib/openapi/build-openapi-document");
    const { publicRoutes } = await import("@/app/api/public-routes");
    const document = buildOpenApiDocument(publicRoutes) as unknown as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operationIds = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    const client = createClient({ baseUrl: "http://127.0.0.1:1", apiKey: `svc_${"a".repeat(40)}` }) as Record<
      string,
      unknown
    >;
    expect(new Set(operationIds).size).toBe(operationIds.length);
    for (const operationId of operationIds) {
      expect(operationId, "camelCase").toMatch(/^[a-z][A-Za-z]*$/);
      if (operationId !== "fundBalance") expect(typeof client[operationId!], operationId).toBe("function");
    }
  });
});
