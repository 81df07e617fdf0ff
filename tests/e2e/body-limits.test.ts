// Every request body is bounded, not only the JSON API's (docs/operations.md: Request body limits):
// next-auth's endpoints take at most MAX_BODY_BYTES on both hosts (the route file reads the body
// within the limit before next-auth sees it), and the lean host refuses any body over 1 MiB that it
// would hand to Next (dashboard pages, server actions, any route file), counting chunked bodies as
// they arrive. Each refusal is the catalogue's JSON 413 and the server keeps serving.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEXT_BODY_LIMIT_BYTES } from "@/lib/http/body-limits";
import { startNextServer, type NextServer } from "../helpers/next-start";
import { TEST_ENV } from "../setup/test-env";
import { suiteBaseUrl, suiteDatabaseUrl } from "../helpers/suite";

const API_LIMIT = 16 * 1024; // MAX_BODY_BYTES's default; the test servers do not change it

interface Sent {
  status: number;
  json: unknown;
}

/** Sends `size` bytes as one body, declared (Content-Length) or chunked, and reads the answer. */
function post(baseUrl: string, path: string, size: number, mode: "declared" | "chunked"): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { "content-type": "application/x-www-form-urlencoded" };
    if (mode === "declared") headers["content-length"] = size;
    const request = http.request(baseUrl + path, { method: "POST", headers }, (response) => {
      let text = "";
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = text.slice(0, 200);
        }
        resolve({ status: response.statusCode ?? 0, json });
      });
      response.on("error", reject);
    });
    // The server hangs up while the rest of an oversize body is still being written: an error after
    // the answer was read changes nothing (the promise is settled), an error before it fails.
    request.on("error", (error) =>
      reject(new Error(`no answer to POST ${path} (${size} bytes, ${mode}): ${error.message}`)),
    );
    const chunk = Buffer.alloc(16 * 1024, "a");
    let sent = 0;
    const writeMore = () => {
      while (sent < size) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += part.length;
        if (!request.write(part)) return void request.once("drain", writeMore);
      }
      request.end();
    };
    writeMore();
  });
}

// The catalogue's error string, as on every failure; the limit is a field of its own.
const tooLarge = (limit: number) => ({
  success: false,
  code: "PAYLOAD_TOO_LARGE",
  error: "PAYLOAD TOO LARGE",
  maxBytes: limit,
});

let next: NextServer;
const hosts: { name: string; url: () => string }[] = [
  { name: "lean host", url: () => suiteBaseUrl() },
  { name: "next start", url: () => next.baseUrl },
];

beforeAll(async () => {
  next = await startNextServer({ ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl() });
}, 120_000);
afterAll(async () => {
  await next?.stop();
});

describe.each(hosts)("$name", (host) => {
  it.each(["declared", "chunked"] as const)(
    "an oversize %s POST to /api/auth/callback/credentials is a JSON 413, and sign-in still works",
    async (mode) => {
      const refused = await post(host.url(), "/api/auth/callback/credentials", API_LIMIT + 1, mode);
      expect(refused).toEqual({ status: 413, json: tooLarge(API_LIMIT) });
      // Still up, and next-auth still answers, a small form included.
      const csrf = await fetch(host.url() + "/api/auth/csrf");
      expect(csrf.status).toBe(200);
      expect(await csrf.json()).toEqual({ csrfToken: expect.any(String) });
      const small = await post(host.url(), "/api/auth/callback/credentials", 200, mode);
      expect(small.status).not.toBe(413);
      expect(small.status).toBeLessThan(500);
    },
  );
});

describe("the lean host's hand-off to Next", () => {
  it.each(["declared", "chunked"] as const)(
    "refuses a %s body over 1 MiB for any Next path with a JSON 413 and keeps serving",
    async (mode) => {
      for (const path of ["/admin/login", "/admin/catalog", "/docs", "/api/some-new-route"]) {
        const refused = await post(suiteBaseUrl(), path, NEXT_BODY_LIMIT_BYTES + 1, mode);
        expect(refused, path).toEqual({ status: 413, json: tooLarge(NEXT_BODY_LIMIT_BYTES) });
      }
      const health = await fetch(suiteBaseUrl() + "/healthz");
      expect(health.status).toBe(200);
      const login = await fetch(suiteBaseUrl() + "/admin/login");
      expect(login.status).toBe(200);
    },
  );

  it.each(["declared", "chunked"] as const)("lets a %s body within the limit through to Next", async (mode) => {
    const within = await post(suiteBaseUrl(), "/api/some-new-route", 64 * 1024, mode);
    // The /api catch-all's JSON 404: Next read the request, not the hand-off's 413.
    expect(within).toEqual({ status: 404, json: { success: false, error: "NOT FOUND", code: "NOT_FOUND" } });
  });
});
