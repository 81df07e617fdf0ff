// Everything the order page shows: the stored order (as the invoice the client sees, and the
// internal fields), its account and key, the event timeline, the ledger entries it caused, and the
// admin actions taken on it. Codes are never decrypted here: the page shows how many were delivered.
import { getPool } from "../db/pool";
import type { OrderRow } from "../orders/build-invoice";

export interface OrderEventLine {
  id: number;
  fromStatus: string | null;
  toStatus: string;
  reason: string;
  data: unknown;
  createdAt: Date;
}

export interface OrderLedgerLine {
  id: number;
  kind: "credit" | "debit" | "refund" | "adjustment";
  amountCents: number;
  balanceAfterCents: number;
  actor: string;
  reason: string | null;
  createdAt: Date;
}

export interface OrderAuditLine {
  id: number;
  actor: string;
  action: string;
  details: unknown;
  createdAt: Date;
}

export interface OrderDetail {
  order: OrderRow & { supplier: string | null; supplier_ref: string | null; attempts: number; updated_at: Date };
  account: { id: number; telegramUsername: string | null; displayName: string | null; balanceCents: number };
  apiKeyPrefix: string | null;
  codes: { reserved: number; delivered: number };
  events: OrderEventLine[];
  ledger: OrderLedgerLine[];
  audit: OrderAuditLine[];
}

export async function readOrderDetail(orderId: number): Promise<OrderDetail | undefined> {
  if (!Number.isSafeInteger(orderId) || orderId < 1 || orderId > 2_147_483_647) return undefined;
  const pool = getPool();
  const { rows } = await pool.query<OrderDetail["order"]>(`SELECT * FROM orders WHERE id = $1`, [orderId]);
  const order = rows[0];
  if (!order) return undefined;
  const [account, key, codes, events, ledger, audit] = await Promise.all([
    pool.query<OrderDetail["account"]>(
      `SELECT id, telegram_username AS "telegramUsername", display_name AS "displayName", balance_cents AS "balanceCents"
         FROM accounts WHERE id = $1`,
      [order.account_id],
    ),
    pool.query<{ prefix: string }>(`SELECT prefix FROM api_keys WHERE id = $1`, [order.api_key_id]),
    pool.query<OrderDetail["codes"]>(
      `SELECT count(*) FILTER (WHERE status = 'reserved')::int AS reserved, count(*) FILTER (WHERE status = 'delivered')::int AS delivered
         FROM inventory_codes WHERE order_id = $1`,
      [orderId],
    ),
    pool.query<OrderEventLine>(
      `SELECT id, from_status AS "fromStatus", to_status AS "toStatus", reason, data, created_at AS "createdAt"
         FROM order_events WHERE order_id = $1 ORDER BY id`,
      [orderId],
    ),
    pool.query<OrderLedgerLine>(
      `SELECT id, kind, amount_cents AS "amountCents", balance_after_cents AS "balanceAfterCents", actor, reason, created_at AS "createdAt"
         FROM ledger_entries WHERE order_id = $1 ORDER BY id`,
      [orderId],
    ),
    pool.query<OrderAuditLine>(
      `SELECT id, actor, action, details, created_at AS "createdAt"
         FROM audit_log WHERE target_type = 'order' AND target_id = $1 ORDER BY id`,
      [String(orderId)],
    ),
  ]);
  return {
    order,
    account: account.rows[0],
    apiKeyPrefix: key.rows[0]?.prefix ?? null,
    codes: codes.rows[0],
    events: events.rows,
    ledger: ledger.rows,
    audit: audit.rows,
  };
}
