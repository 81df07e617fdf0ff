// The books and the orders, checked while the soak runs and at its end. Each check reads the
// database (or what the local fakes recorded) and names every order that breaks it.
import type pg from "pg";
import { checkLedger } from "@/lib/wallet/sql/check-ledger";
import type { FakeH2hSupplier } from "../helpers/fake-h2h-supplier";
import type { WebhookReceiver } from "../helpers/webhook-receiver";
import type { SoakHistory } from "./history";
import { signatureValid } from "./operations";
import type { SoakWorld } from "./world";

const list = (rows: unknown[]) => JSON.stringify(rows.slice(0, 10));

/** Invariants that hold at every moment: run while faults strike, and at the end. */
export async function checkBooks(db: pg.Pool, history: SoakHistory, suppliers: FakeH2hSupplier[]): Promise<void> {
  const ledger = await checkLedger(db);
  history.check(
    "the books balance (the ledger check: every wallet equals its ledger, one debit per charge, one full refund per cancelled charge)",
    ledger.length ? ledger.slice(0, 5).join("; ") : undefined,
  );
  const negative = (await db.query(`SELECT id, balance_cents FROM accounts WHERE balance_cents < 0`)).rows;
  history.check("no wallet is ever negative", negative.length ? list(negative) : undefined);

  const { rows: orders } = await db.query<{
    public_id: string;
    status: string;
    line_kind: string;
    livemode: boolean;
    finals: number;
  }>(
    `SELECT o.public_id, o.status, o.line_kind, o.livemode,
            (SELECT count(*)::int FROM order_events e WHERE e.order_id = o.id AND e.to_status IN ('completed', 'cancelled')) AS finals
       FROM orders o`,
  );
  const doubled = orders.filter((order) => order.finals > 1);
  history.check("every charge has one terminal outcome", doubled.length ? list(doubled) : undefined);

  // The suppliers' side: goods delivered at most once per order over both suppliers, and an order
  // sent to the second supplier only once the first refused it or never got it.
  const deliveries = new Map<string, number>();
  const holders = new Map<string, string[]>();
  for (const supplier of suppliers)
    for (const [reference, topup] of supplier.topups) {
      deliveries.set(reference, (deliveries.get(reference) ?? 0) + supplier.deliveries(reference));
      holders.set(reference, [...(holders.get(reference) ?? []), topup.status]);
    }
  const twice = [...deliveries].filter(([, count]) => count > 1);
  history.check("an order is delivered at most once", twice.length ? list(twice) : undefined);
  const atTwo = [...holders].filter(([, statuses]) => statuses.filter((status) => status !== "failed").length > 1);
  history.check("an order is in flight at one supplier at a time", atTwo.length ? list(atTwo) : undefined);
  const status = new Map(orders.map((order) => [order.public_id, order.status]));
  const deliveredButCancelled = [...deliveries].filter(
    ([reference, count]) => count > 0 && status.get(reference) === "cancelled",
  );
  history.check(
    "a delivered order is never cancelled",
    deliveredButCancelled.length ? list(deliveredButCancelled) : undefined,
  );
}

/** Once everything has settled: every order terminal, every completed live top-up delivered once. */
export async function checkSettled(db: pg.Pool, history: SoakHistory, suppliers: FakeH2hSupplier[]): Promise<void> {
  const { rows: open } = await db.query(
    `SELECT public_id, status FROM orders WHERE status NOT IN ('completed', 'cancelled')`,
  );
  history.check("every order terminal within the bound after the last fault", open.length ? list(open) : undefined);
  const { rows: completed } = await db.query<{ public_id: string }>(
    `SELECT public_id FROM orders WHERE status = 'completed' AND livemode AND line_kind = 'topup'`,
  );
  const undelivered = completed.filter(
    (order) => suppliers.reduce((sum, supplier) => sum + supplier.deliveries(order.public_id), 0) !== 1,
  );
  history.check("a completed top-up was delivered exactly once", undelivered.length ? list(undelivered) : undefined);
  const { rows: finals } = await db.query(
    `SELECT o.public_id FROM orders o
      WHERE (SELECT count(*) FROM order_events e WHERE e.order_id = o.id AND e.to_status IN ('completed', 'cancelled')) <> 1`,
  );
  history.check("every charge has one terminal outcome", finals.length ? list(finals) : undefined);
}

/**
 * Every event of a subscribed account reached its endpoint at least once, signed with the endpoint's
 * secret and answered 2xx (`verified`: those webhook-ids, checked on arrival), or waits for its next
 * attempt on the documented retry schedule, or for its endpoint's pause after failures in a row to
 * end (docs/webhooks.md: minutes, both): those are counted, not lost. Anything else is missing.
 */
export async function checkWebhooks(
  db: pg.Pool,
  world: SoakWorld,
  verified: Map<string, Set<string>>,
): Promise<{ missing: string[]; waiting: number }> {
  const missing: string[] = [];
  let waiting = 0;
  for (const account of world.accounts)
    for (const mode of ["live", "test"] as const) {
      const accountId = mode === "live" ? account.id : account.testId;
      const { rows } = await db.query<{ public_id: string; scheduled: boolean }>(
        `SELECT e.public_id,
                EXISTS (SELECT 1 FROM webhook_deliveries d JOIN webhook_endpoints p ON p.id = d.endpoint_id
                         WHERE d.event_id = e.id AND d.status = 'pending'
                           AND (d.next_attempt_at > now() OR p.paused_until > now())) AS scheduled
           FROM webhook_events e
          WHERE e.account_id = $1 AND e.type <> 'endpoint.test' ORDER BY e.sequence`,
        [accountId],
      );
      const seen = verified.get(account.endpoints[mode].path) ?? new Set();
      for (const row of rows) {
        if (seen.has(row.public_id)) continue;
        if (row.scheduled) waiting++;
        else missing.push(`${account.username}/${mode} ${row.public_id}`);
      }
    }
  return { missing, waiting };
}

/** Checks the signature of every delivery received since the last call; counts the bad ones. */
export function verifyArrivals(
  receivers: WebhookReceiver[],
  world: SoakWorld,
  verified: Map<string, Set<string>>,
  cursor: number[],
  history: SoakHistory,
): void {
  const secrets = new Map(
    world.accounts.flatMap((account) =>
      (["live", "test"] as const).map((mode) => [account.endpoints[mode].path, account.endpoints[mode].secret]),
    ),
  );
  receivers.forEach((receiver, i) => {
    for (const received of receiver.received.slice(cursor[i] ?? 0)) {
      const secret = secrets.get(received.path);
      const valid = secret !== undefined && signatureValid(secret, received.body, received.headers);
      history.check(
        "every webhook is signed with its endpoint's secret",
        valid ? undefined : `${received.path} ${received.headers["webhook-id"]}`,
      );
      // Reached means taken: an event answered 500 must come again.
      const taken =
        received.answeredStatus !== undefined && received.answeredStatus >= 200 && received.answeredStatus < 300;
      if (valid && taken) {
        const ids = verified.get(received.path) ?? new Set<string>();
        ids.add(received.headers["webhook-id"]!);
        verified.set(received.path, ids);
      }
    }
    cursor[i] = receiver.received.length;
  });
}
