import { getPool } from "../db/pool";
import { accountColumns, type AccountRecord, type Queryable } from "./account-record";
import { listApiKeys, type ApiKeySummary } from "./list-api-keys";

export interface LedgerLine {
  id: number;
  kind: "credit" | "debit" | "refund" | "adjustment";
  amountCents: number;
  balanceAfterCents: number;
  orderId: number | null;
  actor: string;
  reason: string | null;
  createdAt: Date;
}

export interface AccountDescription {
  account: AccountRecord;
  keys: ApiKeySummary[];
  /** Newest first. */
  recentLedger: LedgerLine[];
  orderCount: number;
}

/** Everything an admin needs to judge an account at a glance (/account). */
export async function describeAccount(accountId: number, ledgerLimit = 10, db: Queryable = getPool()): Promise<AccountDescription | undefined> {
  const { rows } = await db.query<AccountRecord & { orderCount: number }>(
    `SELECT ${accountColumns("a")}, (SELECT count(*)::int FROM orders o WHERE o.account_id = a.id) AS "orderCount"
       FROM accounts a WHERE a.id = $1`,
    [accountId],
  );
  if (rows.length === 0) return undefined;
  const { orderCount, ...account } = rows[0];
  // Sequential on purpose: db may be one transaction's client, which runs one query at a time.
  const keys = await listApiKeys(accountId, db);
  const ledger = await db.query<LedgerLine>(
    `SELECT id, kind, amount_cents AS "amountCents", balance_after_cents AS "balanceAfterCents", order_id AS "orderId",
            actor, reason, created_at AS "createdAt"
       FROM ledger_entries WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
    [accountId, ledgerLimit],
  );
  return { account, keys, recentLedger: ledger.rows, orderCount };
}
