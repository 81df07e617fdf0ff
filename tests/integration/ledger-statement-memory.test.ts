// Acceptance: a month's statement of an account with 100,000 entries streams with flat memory.
//
// Memory is asserted without timing, two ways, each seen failing against a version that holds the
// whole statement:
// - The statement is served by a server of this file's own whose V8 old generation is capped
//   (--max-old-space-size=STATEMENT_HEAP_MB): enough for the idle service and a streamed
//   statement, too little for one built whole (all rows read at once, then the CSV string: that
//   server died of "JavaScript heap out of memory" and the download failed). A GC runs whenever
//   the heap nears the cap, so the cap tests the live set, not how lazily garbage is collected.
// - The server's peak RSS (VmHWM, which only grows) may not grow by the size of the file. A version
//   that streamed from the database but collected the body into one string before answering fitted
//   in the capped heap (strings and buffers live partly outside it) but grew peak RSS by 162 MB for
//   a 30 MB file; the streaming service grows it by about 20 MB whatever the file's size.
// The response also carries no Content-Length: it was not known when the headers left.
// The same server then shows a statement beyond the open-statement limit answered 503 with
// Retry-After, and the slots coming back once the held downloads are abandoned.
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "@/lib/config/env";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../setup/global-setup";
import { startNextServer } from "../helpers/next-start";
import { TEST_ENV } from "../setup/test-env";
import { api } from "../helpers/api";
import { sqlRow } from "../helpers/db";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { expectBooksBalance } from "../helpers/orders";
import { insertLedgerHistory, parseStatementCsv } from "../helpers/ledger-history";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteDatabaseUrl } from "../helpers/suite";

const ENTRIES = 100_000;
// Old-generation caps per host: `next start` carries Next's own modules as well.
const LEAN_HEAP_MB = Number(process.env.STATEMENT_HEAP_MB ?? 128);
const NEXT_HEAP_MB = Number(process.env.STATEMENT_NEXT_HEAP_MB ?? 160);
const built = fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"));
if (!built)
  console.log("[statement memory] the next start case is skipped: no Next build (.next); run without SKIP_BUILD");
const MONTH = "from=2026-10-01&to=2026-11-01";

let server: { child: ChildProcess; baseUrl: string };
let nextServer: Awaited<ReturnType<typeof startNextServer>> | undefined;
let account: Awaited<ReturnType<typeof createAccount>>;

function memoryOf(pid: number): { rssKb: number; peakRssKb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)![1]);
  return { rssKb: field("VmRSS"), peakRssKb: field("VmHWM") };
}

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  account = await createAccount();
  // 100,000 entries 26 s apart fill October 2026 (the last on 30 October at 02:13); a ~620-byte
  // reason makes each CSV row ~710 bytes and the file ~70 MB, far above the streaming overhead.
  await insertLedgerHistory(account.accountId, {
    start: new Date("2026-10-01T00:00:00Z"),
    stepSeconds: 26,
    count: ENTRIES,
    reasonPadding: 600,
  });
  const env = (heapMb: number) => ({
    ...TEST_ENV,
    DATABASE_URL: suiteDatabaseUrl(),
    // A quarter of 8: two statements at once.
    PG_POOL_MAX: "8",
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --max-old-space-size=${heapMb}`.trim(),
  });
  server = await startServer(env(LEAN_HEAP_MB));
  if (built) {
    nextServer = await startNextServer(env(NEXT_HEAP_MB));
    // A request that reaches `next start` while it is still starting is answered 503 with
    // Retry-After (tests/e2e/next-start-first-request.test.ts). That is not what this file tests,
    // so the first request is a health check whose answer is printed, not asserted.
    const first = await fetch(`${nextServer.baseUrl}/healthz`);
    if (first.status !== 200)
      console.log(`[statement memory] next start's first request answered ${first.status}: ${await first.text()}`);
  }
}, 300_000);
afterAll(async () => {
  await nextServer?.stop();
  if (server && server.child.exitCode === null) {
    server.child.kill("SIGTERM");
    await new Promise((resolve) => server.child.once("exit", resolve));
  }
});

/** Statements' transactions the server holds open right now. */
// A statement's transaction is open while its session is in a transaction, whether it waits for the
// reader (idle in transaction) or is reading a batch (active): counting only the idle ones let a
// transaction whose last batch was still running when the download was abandoned pass for closed,
// and be seen again a moment later, idle, before its ROLLBACK (a failure seen under load).
async function openStatementTransactions(): Promise<number> {
  const row = await sqlRow<{ open: number }>(
    `SELECT count(*)::int AS open FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
        AND (state = 'active' OR state LIKE 'idle in transaction%') AND query LIKE '%FROM ledger_entries%'`,
  );
  return row.open;
}

/** Downloads October from `host` and checks its sums and the server's memory. */
async function expectStreamedStatement(host: { child: ChildProcess; baseUrl: string }, heapMb: number) {
  const pid = host.child.pid!;
  // Warm up (modules, Prisma, the pool) so the peak below is the statement's own.
  expect(
    (await api(`/ledger?format=csv&from=2026-10-01&to=2026-10-02`, { key: account.key }, host.baseUrl)).status,
  ).toBe(200);
  const before = memoryOf(pid);

  const res = await fetch(`${host.baseUrl}/ledger?format=csv&${MONTH}`, { headers: { "x-api-key": account.key } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-length")).toBeNull();
  const decoder = new TextDecoder();
  let text = "";
  let chunks = 0;
  const reader = res.body!.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks++;
    text += decoder.decode(read.value, { stream: true });
  }
  text += decoder.decode();
  const after = memoryOf(pid);
  const bytes = Buffer.byteLength(text);
  console.log(
    `[statement memory] ${host === server ? "lean host" : "next start"}: ${ENTRIES} entries, ${(bytes / 1e6).toFixed(1)} MB in ${chunks} chunks; heap cap ${heapMb} MB; ` +
      `RSS ${Math.round(before.rssKb / 1024)} -> ${Math.round(after.rssKb / 1024)} MB, peak RSS ${Math.round(before.peakRssKb / 1024)} -> ${Math.round(after.peakRssKb / 1024)} MB`,
  );
  expect(host.child.exitCode).toBeNull();

  const statement = parseStatementCsv(text);
  expect(statement.entries).toHaveLength(ENTRIES);
  expect(statement.opening.cents).toBe(0);
  const sum = statement.entries.reduce((total, e) => total + e.amountCents, 0);
  const { balance_cents } = await sqlRow<{ balance_cents: number }>(
    `SELECT balance_cents FROM accounts WHERE id = $1`,
    [account.accountId],
  );
  expect(statement.opening.cents + sum).toBe(statement.closing.cents);
  expect(statement.closing.cents).toBe(balance_cents);
  // Had the server held the file, its peak RSS would have grown by at least the file's size.
  expect(bytes).toBeGreaterThan(65e6);
  expect((after.peakRssKb - before.peakRssKb) * 1024).toBeLessThan(bytes);
  await expectBooksBalance();
}

describe("a month's statement of 100,000 entries", () => {
  it(
    "streams from the lean host in a capped heap, its rows summing from the opening to the closing balance",
    () => expectStreamedStatement(server, LEAN_HEAP_MB),
    300_000,
  );

  it.skipIf(!built)(
    "streams from next start in a capped heap, its rows summing from the opening to the closing balance",
    () => expectStreamedStatement(nextServer!, NEXT_HEAP_MB),
    300_000,
  );

  it("answers a statement beyond the open-statement limit 503 with Retry-After, and frees the slots of abandoned downloads", async () => {
    // Two downloads that are never read hold their slots: 70 MB cannot fit in the sockets' buffers,
    // so backpressure keeps both transactions open. A key streams one statement at a time, so the
    // second is another key's.
    const held = [new AbortController(), new AbortController()];
    const keys = [account.key, (await issueTestKey(account.accountId, { name: "second" })).key];
    for (const [index, controller] of held.entries()) {
      const res = await fetch(`${server.baseUrl}/ledger?format=csv&${MONTH}`, {
        headers: { "x-api-key": keys[index]! },
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
    }
    const refused = await api(`/ledger?format=csv&${MONTH}`, { key: account.key }, server.baseUrl);
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ success: false, code: "SERVICE_UNAVAILABLE" });
    expect(refused.headers.get("retry-after")).toBe("5");
    // JSON pages do not use the slots.
    expect((await api("/ledger", { key: account.key }, server.baseUrl)).json).toMatchObject({
      success: true,
      total: ENTRIES,
    });

    for (const controller of held) controller.abort();
    // The server ends each transaction when it sees the connection close.
    const deadline = Date.now() + 60_000;
    while ((await openStatementTransactions()) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await openStatementTransactions()).toBe(0);
    const again = await api(`/ledger?format=csv&from=2026-10-01&to=2026-10-02`, { key: account.key }, server.baseUrl);
    expect(again.status).toBe(200);
    expect(parseStatementCsv(again.text).entries.length).toBeGreaterThan(3000);
  }, 300_000);
});
