import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations } from "@/lib/db/migrate";
import { closePool } from "@/lib/db/pool";
import { seedDemoData, DEMO_CREDIT_CENTS } from "@/lib/seed/seed-demo-data";
import { demoCatalog } from "@/lib/seed/demo-catalog";
import { decryptCode } from "@/lib/codes/code-crypto";
import { api } from "../helpers/api";
import { closeSql, resetDatabase, sql, sqlRow, firstOf } from "../helpers/db";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { suiteBaseUrl, suiteDatabaseUrl } from "../helpers/suite";

beforeAll(resetDatabase);
afterAll(async () => {
  await closePool();
  await closeSql();
});

describe("GET /healthz", () => {
  it("answers ok with the database up, without a key", async () => {
    const res = await api("/healthz");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, db: "up", version: expect.any(String) });
  });

  it("answers a load balancer's HTTP/1.0 health check, which carries no Host header", async () => {
    const { port } = new URL(suiteBaseUrl());
    const answer = await new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = net.connect(Number(port), "127.0.0.1", () => socket.write("GET /healthz HTTP/1.0\r\n\r\n"));
      socket.on("data", (chunk) => (text += chunk));
      socket.once("end", () => resolve(text));
      socket.once("error", reject);
    });
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ ok: true, db: "up" });
  });

  it("answers 503 with ok: false when the database does not answer", async () => {
    const { child, baseUrl } = await startServer({
      ...TEST_ENV,
      DATABASE_URL: "postgresql://nobody:nothing@127.0.0.1:1/none",
      SERVE_DASHBOARD: "0",
    });
    try {
      const res = await api("/healthz", {}, baseUrl);
      expect(res.status).toBe(503);
      expect(res.json).toMatchObject({ ok: false, db: "down" });
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("migrations", () => {
  it("applying them again changes nothing", async () => {
    expect(await applyMigrations(suiteDatabaseUrl())).toEqual([]);
  });
});

describe("demo seed", () => {
  async function snapshot() {
    const counts = await sqlRow(
      `SELECT (SELECT count(*) FROM game_lines)::int AS lines, (SELECT count(*) FROM products)::int AS products,
              (SELECT count(*) FROM inventory_codes)::int AS codes, (SELECT count(*) FROM accounts)::int AS accounts,
              (SELECT count(*) FROM api_keys)::int AS keys, (SELECT count(*) FROM ledger_entries)::int AS ledger,
              (SELECT coalesce(sum(balance_cents), 0)::int FROM accounts) AS balances`,
    );
    return counts;
  }

  it("loads the demo catalog and a funded demo account, and a second run changes nothing", async () => {
    const first = await seedDemoData();
    expect(first.demoApiKey).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    const afterFirst = await snapshot();
    const second = await seedDemoData();
    expect(second.accountId).toBe(first.accountId);
    expect(second.demoApiKey).toBeUndefined(); // the key is shown once, never re-created
    expect(await snapshot()).toEqual(afterFirst);

    expect(afterFirst.lines).toBe(demoCatalog.length);
    expect((await sql(`SELECT slug FROM game_lines ORDER BY slug`)).map((r) => r.slug)).toEqual([
      "br",
      "gacha",
      "giftcards",
      "keys",
      "moba",
    ]);
    const account = await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [first.accountId]);
    expect(account.balance_cents).toBe(DEMO_CREDIT_CENTS);
    const ledger = await sql(`SELECT kind, amount_cents, actor, reason FROM ledger_entries WHERE account_id = $1`, [
      first.accountId,
    ]);
    expect(ledger).toEqual([{ kind: "credit", amount_cents: DEMO_CREDIT_CENTS, actor: "seed", reason: "demo credit" }]);
    const key = await sqlRow(`SELECT key_hash, prefix FROM api_keys WHERE account_id = $1`, [first.accountId]);
    expect(key.key_hash).not.toContain(first.demoApiKey);
    expect(first.demoApiKey!.startsWith(key.prefix)).toBe(true);
  });

  it("stores codes encrypted, with catalog ids of SVC + line code + pack token", async () => {
    const rows = await sql(
      `SELECT p.catalog_id, c.ciphertext FROM inventory_codes c JOIN products p ON p.id = c.product_id ORDER BY c.id LIMIT 3`,
    );
    expect(rows.length).toBe(3);
    for (const row of rows) {
      expect(row.catalog_id).toMatch(/^SVC(GK|GC)[A-Z0-9]+$/);
      const plain = decryptCode(row.ciphertext);
      expect(plain).toMatch(/^DEMO-/);
      expect(row.ciphertext).not.toContain(plain);
    }
  });
});

describe("database constraints guard the money rules", () => {
  it("refuses a negative balance, a second refund of an order and a second order per idempotency key", async () => {
    const account = await sqlRow(`INSERT INTO accounts (telegram_id) VALUES (42) RETURNING id`);
    await expect(sql(`UPDATE accounts SET balance_cents = -1 WHERE id = $1`, [account.id])).rejects.toThrow(
      /accounts_balance_non_negative/,
    );
    const product = await sqlRow(`SELECT id, catalog_id, price_cents FROM products LIMIT 1`);
    const insertOrder = (publicId: string) =>
      sql(
        `INSERT INTO orders (public_id, account_id, trxid, idempotency_key, request_fingerprint, product_id, catalog_id,
                             line_slug, line_kind, pack_name, unit_price_cents, amount_cents, status, updated_at, key_seq)
         VALUES ($1, $2, 't1', 't1', 'f', $3, $4, 'br', 'topup', 'p', $5, $5, 'cancelled', now(), 1) RETURNING id`,
        [publicId, account.id, product.id, product.catalog_id, product.price_cents],
      );
    const order = firstOf(await insertOrder("SVCAPI-BR-1-x"));
    await expect(insertOrder("SVCAPI-BR-2-y")).rejects.toThrow(/orders_account_id_idempotency_key_key/);
    await sql(
      `INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, account_seq) VALUES ($1, 'refund', 100, 100, $2, 'test', 1)`,
      [account.id, order.id],
    );
    await expect(
      sql(
        `INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, account_seq) VALUES ($1, 'refund', 100, 200, $2, 'test', 2)`,
        [account.id, order.id],
      ),
    ).rejects.toThrow(/ledger_entries_order_id_kind_key/);
    await expect(
      sql(
        `INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, actor, account_seq) VALUES ($1, 'debit', 100, 0, 'test', 2)`,
        [account.id],
      ),
    ).rejects.toThrow(/ledger_entries_amount_sign/);
  });
});
