// Hostile input, generated: whatever arrives in a body, a query, a path or a header, the answer is
// a success or one of the catalogue's JSON errors — never a 500, an HTML page or a stack trace.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { errorCatalogue } from "@/lib/http/errors";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { checkLedger } from "@/lib/wallet/check-ledger";
import { api, type ApiResult } from "../helpers/api";
import { closeSql, resetDatabase } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";

const RUNS = Number(process.env.HOSTILE_RUNS ?? 150);
const catalogueErrors = new Set<string>(Object.values(errorCatalogue).map((entry) => entry.error));
let key: string;
export let casesRun = 0;

beforeAll(async () => {
  await resetDatabase();
  await seedDemoCatalog();
  key = (await createAccount({ balanceCents: 1_000_000 })).key;
});
afterAll(async () => {
  console.log(`[hostile-input] ${casesRun} generated requests sent`);
  await closePool();
  await closeSql();
});

function expectWellFormed(res: ApiResult, what: string) {
  casesRun++;
  expect(res.status, what).not.toBe(500);
  expect(res.headers.get("content-type") ?? "", what).toMatch(/application\/json|text\/csv/);
  expect(res.text, what).not.toMatch(/<html|<!DOCTYPE|\n\s+at .+:\d+:\d+/i);
  if (res.status >= 400) {
    expect(res.json?.success, what).toBe(false);
    expect(typeof res.json.error, what).toBe("string");
    // ACCOUNT_RESTRICTED and IP_NOT_ALLOWED put details in their message; all others are the catalogue's.
    if (!res.json.code || !["ACCOUNT_RESTRICTED", "IP_NOT_ALLOWED", "PAYLOAD_TOO_LARGE"].includes(res.json.code)) {
      expect(catalogueErrors.has(res.json.error) || Object.values(errorCatalogue).some((e) => "code" in e && e.code === res.json.code), what).toBe(true);
    }
  } else {
    expect(res.json?.success, what).toBe(true);
  }
}

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }),
  fc.constantFrom("' OR 1=1 --", "\"; DROP TABLE orders; --", "${jndi:ldap://x}", "<script>alert(1)</script>", "../../etc/passwd", "\u0000", "\u202e", "%00", "SVCBR60\u0000", "🙂".repeat(50), "a".repeat(5000)),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 1e308, -0, 2 ** 53 + 1),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);

const orderishBody = fc.record(
  {
    pid: fc.oneof(fc.constantFrom("SVCBR60", "SVCGC10", "SVCGA60", "SVCMB86"), nasty),
    PID: nasty,
    trxid: fc.oneof(fc.uuid(), nasty),
    idTrx: nasty,
    userId: fc.oneof(fc.constantFrom("5123456", "5120404"), nasty),
    zoneId: nasty,
    serverId: fc.oneof(fc.constantFrom("Asia", "NA", "mars"), nasty),
    quantity: nasty,
    idempotencyKey: nasty,
    playerId: nasty,
    code: fc.oneof(fc.constantFrom("ABCD-EFGH", "BAD0-1111", "USED-2222"), nasty),
    __proto__: nasty,
    constructor: nasty,
  },
  { requiredKeys: [] },
);

const deepNesting = fc.integer({ min: 1, max: 3000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth));

describe("POST bodies", () => {
  it.each(["/orders", "/brvvfy", "/mobavfy", "/rdmbr", "/api/orders"])("%s", async (path) => {
    await fc.assert(
      fc.asyncProperty(orderishBody, async (body) => {
        expectWellFormed(await api(path, { key, body }), `${path} ${JSON.stringify(body).slice(0, 200)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it("raw bytes, deep nesting, huge numbers and wrong content types", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), deepNesting, fc.constantFrom("1e999999", "-0", "{\"quantity\": 1e400}", "{\"a\":" + "9".repeat(5000) + "}", "", " ", "\uFEFF{}")),
        fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-16", ""),
        async (raw, contentType) => {
          const headers: Record<string, string> = contentType ? { "content-type": contentType } : {};
          expectWellFormed(await api("/orders", { key, rawBody: raw, headers }), `${contentType} ${raw.slice(0, 80)}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("oversized bodies are a JSON 413", async () => {
    for (const size of [16 * 1024 + 1, 200_000, 2_000_000]) {
      const res = await api("/orders", { key, rawBody: "{" + '"a":"' + "x".repeat(size) + '"}', headers: { "content-type": "application/json" } });
      expectWellFormed(res, `size ${size}`);
      expect(res.status).toBe(413);
    }
  });
});

describe("queries, paths and headers", () => {
  it("GET /history with any query string", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom("limit", "page", "pageSize", "x"), fc.oneof(fc.string(), fc.integer().map(String), fc.double().map(String))), async (query) => {
        const qs = new URLSearchParams(query).toString();
        expectWellFormed(await api(`/history?${qs}`, { key }), qs);
      }),
      { numRuns: RUNS },
    );
  });

  it("GET /orders/:orderId with any id", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: "binary", minLength: 1 }), fc.constantFrom("SVCAPI-BR-1-AAAAAA", "0", "-1", "99999999999999999999", "1e5", "SVCAPI-" + "Z".repeat(300))), async (id) => {
        expectWellFormed(await api(`/orders/${encodeURIComponent(id)}?wait=0`, { key }), id);
      }),
      { numRuns: RUNS },
    );
  });

  it("any X-API-Key or Authorization header", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.constantFrom("svc_" + "A".repeat(40), "Bearer", "svc_", " ".repeat(10)), fc.string({ unit: "grapheme-ascii" })),
        fc.boolean(),
        async (value, asBearer) => {
          // Header values must be ByteStrings: what a real client can send at all.
          const header = value.replace(/[^\x20-\x7e]/g, "");
          const headers: Record<string, string> = asBearer ? { authorization: `Bearer ${header}` } : { "x-api-key": header };
          expectWellFormed(await api("/balance", { headers }), `${asBearer ? "bearer" : "x-api-key"} ${header.slice(0, 60)}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("the books still balance after all of it", async () => {
    expect(await checkLedger()).toEqual([]);
  });
});
