// Statement slots per key: a key that already streams a statement (read slowly, so its transaction
// stays open) is answered 503 SERVICE_UNAVAILABLE with Retry-After for a second one, while another
// key, of the same account or another, still gets its statement; the slot is free again once the
// slow download goes away.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiteBaseUrl } from "../helpers/suite";
import { api } from "../helpers/api";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { insertLedgerHistory, parseStatementCsv } from "../helpers/ledger-history";
import { useCleanDatabase } from "../helpers/clean-database";

// 20,000 entries of ~700 bytes: ~14 MB, far more than the sockets' buffers, so a download that is
// not read keeps its transaction (and its slot) open.
const MONTH = "from=2026-10-01&to=2026-11-01";
const DAY = "from=2026-10-01&to=2026-10-02";

let account: Awaited<ReturnType<typeof createAccount>>;
let other: Awaited<ReturnType<typeof createAccount>>;
const held: AbortController[] = [];

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  account = await createAccount();
  other = await createAccount();
  await insertLedgerHistory(account.accountId, {
    start: new Date("2026-10-01T00:00:00Z"),
    stepSeconds: 120,
    count: 20_000,
    reasonPadding: 600,
  });
}, 120_000);
afterAll(() => {
  for (const controller of held) controller.abort();
});

async function slowDownload(key: string): Promise<void> {
  const controller = new AbortController();
  held.push(controller);
  const res = await fetch(`${suiteBaseUrl()}/ledger?format=csv&${MONTH}`, {
    headers: { "x-api-key": key },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  // One chunk read, then nothing: the reader is slow.
  expect((await res.body!.getReader().read()).done).toBe(false);
}

describe("GET /ledger statements per key", () => {
  it("answers a key's second open statement 503 with Retry-After, and serves every other key", async () => {
    await slowDownload(account.key);

    const refused = await api(`/ledger?format=csv&${DAY}`, { key: account.key });
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ success: false, code: "SERVICE_UNAVAILABLE" });
    expect(refused.headers.get("retry-after")).toBe("5");

    // Another key of the same account, and another account's key, still get theirs.
    const second = await issueTestKey(account.accountId, { name: "second" });
    const sameAccount = await api(`/ledger?format=csv&${DAY}`, { key: second.key });
    expect(sameAccount.status).toBe(200);
    expect(parseStatementCsv(sameAccount.text).entries).toHaveLength(720);
    expect((await api(`/ledger?format=csv&${DAY}`, { key: other.key })).status).toBe(200);

    // The slow download goes away: the key's slot is free again.
    for (const controller of held.splice(0)) controller.abort();
    const deadline = Date.now() + 30_000;
    let again = await api(`/ledger?format=csv&${DAY}`, { key: account.key });
    while (again.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      again = await api(`/ledger?format=csv&${DAY}`, { key: account.key });
    }
    expect(again.status).toBe(200);
  }, 120_000);
});
