// A small world for a test that owns its own PostgreSQL, written with a client of its own: one line,
// one pack (SVCBR60 at $0.99) carried by the sandbox supplier, and one funded account with an API key.
import pg from "pg";
import { generateApiKey } from "@/lib/auth/api-key-format";

export async function seedSmallWorld(
  url: string,
  account: { telegramId: number; balanceCents: number },
): Promise<{ key: string; accountId: number }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const [{ id: lineId }] = (
      await admin.query(
        `INSERT INTO game_lines (slug, code, game_name, product_name, kind, required_fields) VALUES ('br', 'BR', 'BR', 'BR', 'topup', '[{"field":"userId","label":"Player ID"}]') RETURNING id`,
      )
    ).rows;
    await admin.query(
      `WITH pack AS (
         INSERT INTO products (catalog_id, line_id, pack_name, price_cents, supplier_sku)
         VALUES ('SVCBR60', $1, '60 UC', 99, 'br-60') RETURNING id
       ), supplier AS (
         INSERT INTO suppliers (name, kind) VALUES ('sandbox', 'sandbox')
         ON CONFLICT (name) DO UPDATE SET kind = EXCLUDED.kind RETURNING id
       )
       INSERT INTO supplier_offers (product_id, supplier_id, sku) SELECT pack.id, supplier.id, 'br-60' FROM pack, supplier`,
      [lineId],
    );
    const [{ id: accountId }] = (
      await admin.query(
        `INSERT INTO accounts (telegram_id, api_enabled, balance_cents, ledger_count) VALUES ($1, true, $2, 1) RETURNING id`,
        [account.telegramId, account.balanceCents],
      )
    ).rows;
    await admin.query(
      `INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, actor, account_seq) VALUES ($1, 'credit', $2, $2, 'test', 1)`,
      [accountId, account.balanceCents],
    );
    const { key, hash, prefix } = generateApiKey();
    await admin.query(`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES ($1, $2, $3)`, [
      accountId,
      hash,
      prefix,
    ]);
    return { key, accountId };
  } finally {
    await admin.end();
  }
}
