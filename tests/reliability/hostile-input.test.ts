// Hostile input, generated: whatever arrives in a body, a query, a path or a header, the answer is
// a success or one of the catalogue's JSON errors — never a 5xx, an HTML page or a stack trace — and a
// refused request writes nothing. `npm run fuzz -- <cases>` runs this file alone at volume.
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { errorCatalogue } from "@/lib/http/errors";
import { checkLedger } from "@/lib/wallet/sql/check-ledger";
import { api, type ApiResult } from "../helpers/api";
import { sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { useCleanDatabase } from "../helpers/clean-database";

// Cases per generated property ("endpoint"); `npm test` keeps the quick default.
const RUNS = Number(process.env.FUZZ_CASES_PER_ENDPOINT || 150);
if (!Number.isSafeInteger(RUNS) || RUNS < 1)
  throw new Error(`FUZZ_CASES_PER_ENDPOINT must be a positive integer, got ${process.env.FUZZ_CASES_PER_ENDPOINT}`);
// Sized to the count: each case is one request (plus one count query), so a long run is not cut at
// the suite's 30 s default; a hung request still fails the test.
const TIMEOUT_MS = 60_000 + RUNS * 250;
const catalogueErrors = new Set<string>(Object.values(errorCatalogue).map((entry) => entry.error));
let key: string;
export let casesRun = 0;
let refusedCases = 0;
let supplierOutcomes = 0;

// The tables a request can write to. One query, so checking after every case stays cheap.
type WriteCounts = Record<"orders" | "ledger_entries" | "redemptions" | "audit_log" | "webhook_events", number>;
async function countWrites(): Promise<WriteCounts> {
  const row = await sqlRow<WriteCounts>(`SELECT
    (SELECT count(*) FROM orders)::int AS orders,
    (SELECT count(*) FROM ledger_entries)::int AS ledger_entries,
    (SELECT count(*) FROM redemptions)::int AS redemptions,
    (SELECT count(*) FROM audit_log)::int AS audit_log,
    (SELECT count(*) FROM webhook_events)::int AS webhook_events`);
  return row;
}

// Requests here run one at a time and the test server runs no worker, so any change in the counts
// between two answers was written by the request in between.
let lastCounts: WriteCounts;
// Answers that are a supplier's word, not a refusal: "every call that reaches the supplier is
// recorded for the account" (docs/api.md: Verify and redeem), so these may add that one `redemptions`
// row (none when a malformed code is refused before the supplier is asked) and nothing else.
const SUPPLIER_OUTCOMES = new Set(["PLAYER_NOT_FOUND", "INVALID_CODE", "CODE_USED"]);
const SUPPLIER_CALLS = new Set(["/brvvfy", "/mobavfy", "/rdmbr"]);

async function expectNothingWrittenIfRefused(path: string, res: ApiResult, what: string) {
  const counts = await countWrites();
  const before = lastCounts;
  // Updated first, so one failure (and fast-check's shrinking after it) compares against the truth.
  lastCounts = counts;
  if (res.status < 400) return;
  refusedCases++;
  const message = `refused (${res.status} ${res.json?.code}) but wrote rows: ${what}`;
  if (SUPPLIER_CALLS.has(path) && SUPPLIER_OUTCOMES.has(res.json?.code)) {
    supplierOutcomes++;
    expect({ ...counts, redemptions: before.redemptions }, message).toEqual(before);
    expect(counts.redemptions - before.redemptions, message).toBeLessThanOrEqual(1);
  } else {
    expect(counts, message).toEqual(before);
  }
}

/** A request that may succeed and write (POST): well-formed answer, and no rows if it was refused. */
async function send(path: string, call: Parameters<typeof api>[1], what: string): Promise<ApiResult> {
  const res = await api(path, call);
  expectWellFormed(res, what);
  await expectNothingWrittenIfRefused(path, res, what);
  return res;
}

/** For properties whose requests are reads or refusals: nothing at all may be written while they run. */
async function expectNoWritesDuring(run: () => Promise<void>) {
  const before = await countWrites();
  await run();
  expect(await countWrites(), "a read or refused request wrote rows").toEqual(before);
  lastCounts = before;
}

useCleanDatabase();
beforeAll(async () => {
  key = (await createAccount({ balanceCents: 1_000_000 })).key;
  lastCounts = await countWrites();
});
afterAll(async () => {
  console.log(
    `[hostile-input] ${RUNS} cases per endpoint; ${casesRun} requests sent, ${refusedCases} refused ones checked for writes (${supplierOutcomes} of them supplier outcomes, allowed their one redemptions row); rows at the end: ${JSON.stringify(await countWrites())}`,
  );
  console.log(
    `[hostile-input] answers: ${JSON.stringify(Object.fromEntries([...answers].sort((a, b) => b[1] - a[1])))}`,
  );
});

const answers = new Map<string, number>();
// The current test's answers: hostile input must mostly be refused, not only answered politely.
let sentHere = 0;
let refusedHere = 0;
beforeEach(() => {
  sentHere = 0;
  refusedHere = 0;
});
/**
 * At least `share` of this test's requests were refused with a catalogue error and its documented
 * 4xx (expectWellFormed checks both), less three standard deviations so a short run does not fail by chance.
 */
function expectRefusedShare(share: number) {
  expect(sentHere).toBeGreaterThan(0);
  expect(refusedHere, `${refusedHere} of ${sentHere} refused`).toBeGreaterThanOrEqual(
    share * sentHere - (share < 1 ? 3 * Math.sqrt(sentHere) : 0),
  );
}

function expectWellFormed(res: ApiResult, what: string) {
  casesRun++;
  const answer = `${res.status}${res.json?.code ? " " + res.json.code : ""}`;
  answers.set(answer, (answers.get(answer) ?? 0) + 1);
  expect(res.status, what).toBeLessThan(500);
  // The shared test server's limits are out of reach (tests/setup/test-env.ts): a 429 here would mean
  // the run had stopped exercising the handlers and was only measuring the limiter.
  expect(res.status, what).not.toBe(429);
  expect(res.headers.get("content-type") ?? "", what).toMatch(/application\/json|text\/csv/);
  expect(res.text, what).not.toMatch(/<html|<!DOCTYPE|\n\s+at .+:\d+:\d+/i);
  sentHere++;
  if (res.status >= 400) {
    expect(res.json?.success, what).toBe(false);
    expect(typeof res.json.error, what).toBe("string");
    // Every failure carries a catalogue code and its status.
    expect(Object.keys(errorCatalogue), what).toContain(res.json.code);
    expect(res.status, what).toBe(errorCatalogue[res.json.code as keyof typeof errorCatalogue].status);
    // ACCOUNT_RESTRICTED and IP_NOT_ALLOWED put details in their message; all others are the catalogue's.
    if (!["ACCOUNT_RESTRICTED", "IP_NOT_ALLOWED"].includes(res.json.code)) {
      expect(catalogueErrors.has(res.json.error), what).toBe(true);
    }
    refusedHere++;
  } else {
    expect(res.json?.success, what).toBe(true);
  }
}

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }),
  fc.constantFrom(
    "' OR 1=1 --",
    '"; DROP TABLE orders; --',
    "${jndi:ldap://x}",
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "\u0000",
    "\u202e",
    "%00",
    "SVCBR60\u0000",
    "🙂".repeat(50),
    "a".repeat(5000),
  ),
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
  it.each(["/orders", "/brvvfy", "/mobavfy", "/rdmbr", "/api/orders"])(
    "%s",
    async (path) => {
      await fc.assert(
        fc.asyncProperty(orderishBody, async (body) => {
          await send(path, { key, body }, `${path} ${JSON.stringify(body).slice(0, 200)}`);
        }),
        { numRuns: RUNS },
      );
      // Most generated bodies miss or garble a required field.
      expectRefusedShare(0.4);
    },
    TIMEOUT_MS,
  );

  it(
    "raw bytes, deep nesting, huge numbers and wrong content types",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.string({ unit: "binary", maxLength: 300 }),
            deepNesting,
            fc.constantFrom(
              "1e999999",
              "-0",
              '{"quantity": 1e400}',
              '{"a":' + "9".repeat(5000) + "}",
              "",
              " ",
              "\uFEFF{}",
            ),
          ),
          fc.constantFrom(
            "application/json",
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/json; charset=utf-16",
            "",
          ),
          async (raw, contentType) => {
            const headers: Record<string, string> = contentType ? { "content-type": contentType } : {};
            await send("/orders", { key, rawBody: raw, headers }, `${contentType} ${raw.slice(0, 80)}`);
          },
        ),
        { numRuns: RUNS },
      );
      // None of these is a valid order body.
      expectRefusedShare(0.9);
    },
    TIMEOUT_MS,
  );

  it("oversized bodies are a JSON 413", async () => {
    for (const size of [16 * 1024 + 1, 200_000, 2_000_000]) {
      const res = await send(
        "/orders",
        { key, rawBody: "{" + '"a":"' + "x".repeat(size) + '"}', headers: { "content-type": "application/json" } },
        `size ${size}`,
      );
      expect(res.status).toBe(413);
    }
  });
});

describe("queries, paths and headers", () => {
  it(
    "GET /history with any query string",
    async () => {
      await expectNoWritesDuring(() =>
        fc.assert(
          fc.asyncProperty(
            fc.dictionary(
              fc.constantFrom("limit", "page", "pageSize", "x"),
              fc.oneof(fc.string(), fc.integer().map(String), fc.double().map(String)),
            ),
            async (query) => {
              const qs = new URLSearchParams(query).toString();
              expectWellFormed(await api(`/history?${qs}`, { key }), qs);
            },
          ),
          { numRuns: RUNS },
        ),
      );
      // Most generated values are no valid limit or page.
      expectRefusedShare(0.6);
    },
    TIMEOUT_MS,
  );

  it(
    "GET /orders/:orderId with any id",
    async () => {
      // A key of an account with no orders: the POST tests above placed orders under generated
      // trxids (short strings, small numbers), which a generated id here could name.
      const orderless = (await createAccount()).key;
      await expectNoWritesDuring(() =>
        fc.assert(
          fc.asyncProperty(
            fc.oneof(
              fc.string({ minLength: 1 }),
              fc.string({ unit: "binary", minLength: 1 }),
              fc.constantFrom(
                "SVCAPI-BR-1-AAAAAA",
                "0",
                "-1",
                "99999999999999999999",
                "1e5",
                "SVCAPI-" + "Z".repeat(300),
              ),
            ),
            async (id) => {
              expectWellFormed(await api(`/orders/${encodeURIComponent(id)}?wait=0`, { key: orderless }), id);
            },
          ),
          { numRuns: RUNS },
        ),
      );
      // The account has no order: every one is refused.
      expectRefusedShare(1);
    },
    TIMEOUT_MS,
  );

  it(
    "any X-API-Key or Authorization header",
    async () => {
      await expectNoWritesDuring(() =>
        fc.assert(
          fc.asyncProperty(
            fc.oneof(
              fc.string(),
              fc.constantFrom("svc_" + "A".repeat(40), "Bearer", "svc_", " ".repeat(10)),
              fc.string({ unit: "grapheme-ascii" }),
            ),
            fc.boolean(),
            async (value, asBearer) => {
              // Header values must be ByteStrings: what a real client can send at all.
              const header = value.replace(/[^\x20-\x7e]/g, "");
              const headers: Record<string, string> = asBearer
                ? { authorization: `Bearer ${header}` }
                : { "x-api-key": header };
              expectWellFormed(
                await api("/balance", { headers }),
                `${asBearer ? "bearer" : "x-api-key"} ${header.slice(0, 60)}`,
              );
            },
          ),
          { numRuns: RUNS },
        ),
      );
      // No generated key is a live one: every one is refused.
      expectRefusedShare(1);
    },
    TIMEOUT_MS,
  );

  it("the books still balance after all of it", async () => {
    expect(await checkLedger()).toEqual([]);
  });
});
