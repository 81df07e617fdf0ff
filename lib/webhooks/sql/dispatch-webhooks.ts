// The worker's webhook dispatcher: claims due deliveries from the outbox (webhook_deliveries) in
// batches, not a graphile-worker job each, which would add an add_job to every settling transaction
// and three commits to every delivery. Claims and delivered attempts are written with
// synchronous_commit off: a commit lost in a crash only repeats an attempt under the same webhook-id.
// A claim lapses after DELIVERY_TIMEOUT_MS plus a margin, or at once when the worker's sweep finds
// its dispatcher dead (lib/fulfilment/sql/sweep-dead-workers.ts). Settlements in this process wake it; others are found by polling.
import { randomUUID } from "node:crypto";
import type pg from "pg";
import {
  attemptDelivery,
  DELIVERY_TIMEOUT_MS,
  recordDeliveredAttempts,
  type DeliveredAttempt,
  type DeliveryOptions,
} from "./deliver-webhook";
import type { WebhookDeliveryRecord } from "../webhook-record";
import type { DeliveryGate } from "../yield-to-orders";
import { prepared, sql } from "../../db/run-sql";
import { recordWebhookAttempt } from "../../observability/metrics";
import { logger } from "../../observability/logger";

/** How long a claim holds beyond the request's own timeout (recording, a slow database). */
const CLAIM_MARGIN_MS = 30_000;
/** How long a dispatcher with only a few free slots waits for more before it claims. */
const CLAIM_LINGER_MS = 10;
/** How often an idle dispatcher looks for due deliveries written by other processes. */
const DEFAULT_POLL_INTERVAL_MS = 250;

/** How many deliveries may be in flight at once, over every dispatcher (WEBHOOK_*_CONCURRENCY). */
export interface DeliveryCaps {
  perEndpoint: number;
  perAccount: number;
}

const DEFAULT_DELIVERY_CAPS: DeliveryCaps = { perEndpoint: 4, perAccount: 5 };

/**
 * Claims up to `limit` due deliveries for `dispatcherId`; each comes back with its event and
 * endpoint. Fair between accounts: each account's deliveries are numbered after those it already
 * has in flight and taken in that order (every account's first, then every account's second, ...),
 * and rotate between its endpoints the same way; no account gets more than `caps.perAccount` in
 * flight, no endpoint more than `caps.perEndpoint` (one while it is failing), and a paused endpoint
 * none. Dispatchers claiming at the same moment can each fill the same free share once.
 */
export async function claimDueDeliveries(
  db: pg.Pool,
  dispatcherId: string,
  limit: number,
  timeoutMs = DELIVERY_TIMEOUT_MS,
  caps: DeliveryCaps = DEFAULT_DELIVERY_CAPS,
): Promise<WebhookDeliveryRecord[]> {
  const { rows } = await db.query<WebhookDeliveryRecord>(
    prepared(
      "webhooks-claim-due",
      sql`WITH RECURSIVE waiting AS (
            -- The endpoints with pending deliveries, one index descent each (a skip scan), so a
            -- claim costs what the endpoints with work cost, however many others there are.
            (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
            UNION ALL
            SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
                     WHERE d.status = 'pending' AND d.endpoint_id > w.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
              FROM waiting w WHERE w.endpoint_id IS NOT NULL
          ), endpoint AS (
            -- Its attempts in flight: every finished attempt drops its claim, so a live claim is one.
            SELECT e.id, e.account_id, e.paused_until,
                   CASE WHEN e.failing_since IS NULL THEN ${caps.perEndpoint}::int ELSE 1 END AS cap,
                   (SELECT count(*) FROM webhook_deliveries c
                     WHERE c.endpoint_id = e.id AND c.claimed_by IS NOT NULL AND c.claimed_until > now()) AS busy
              FROM waiting w JOIN webhook_endpoints e ON e.id = w.endpoint_id
          ), account AS (
            SELECT *, sum(busy) OVER (PARTITION BY account_id) AS account_busy, count(*) OVER () AS waiting_endpoints
              FROM endpoint
          ), due AS (
            SELECT d.id, d.next_attempt_at, ep.account_id, ep.account_busy,
                   ep.busy + row_number() OVER (PARTITION BY ep.id ORDER BY d.next_attempt_at, d.id) AS endpoint_turn
              FROM account ep
              CROSS JOIN LATERAL (
                SELECT id, next_attempt_at FROM webhook_deliveries
                 WHERE endpoint_id = ep.id AND status = 'pending' AND next_attempt_at <= now()
                   AND (claimed_until IS NULL OR claimed_until < now())
                   AND (ep.paused_until IS NULL OR ep.paused_until <= now())
                 -- Enough for the claim's share of each endpoint: fewer rows to rank.
                 ORDER BY next_attempt_at
                 LIMIT least(greatest(ep.cap - ep.busy, 0), ceil(${limit}::numeric / ep.waiting_endpoints)::int)
              ) d
          ), turn AS (
            SELECT id, next_attempt_at,
                   account_busy + row_number() OVER (PARTITION BY account_id ORDER BY endpoint_turn, next_attempt_at, id)
                     AS account_turn
              FROM due
          ), picked AS (
            SELECT id FROM turn WHERE account_turn <= ${caps.perAccount}
             ORDER BY account_turn, next_attempt_at, id LIMIT ${limit}
          ), claimed AS (
            UPDATE webhook_deliveries
               SET claimed_by = ${dispatcherId},
                   claimed_until = now() + ${timeoutMs + CLAIM_MARGIN_MS} * interval '1 millisecond'
             WHERE id IN (SELECT id FROM webhook_deliveries
                           WHERE id IN (SELECT id FROM picked) AND status = 'pending'
                             AND (claimed_until IS NULL OR claimed_until < now())
                           FOR UPDATE SKIP LOCKED)
            RETURNING id
          )
          SELECT w.* FROM claimed, webhook_delivery(delivery_id => claimed.id) w ORDER BY w.id`,
    ),
  );
  return rows;
}

/** Dispatchers holding claims on pending deliveries: candidates for the worker's liveness sweep. */
export async function listClaimingDispatchers(db: pg.Pool): Promise<string[]> {
  const { rows } = await db.query<{ claimedBy: string }>(
    `SELECT DISTINCT claimed_by AS "claimedBy" FROM webhook_deliveries WHERE status = 'pending' AND claimed_until > now() AND claimed_by IS NOT NULL`,
  );
  return rows.map((r) => r.claimedBy);
}

/** Frees the claims of dispatchers known to be dead, so their deliveries are attempted again now. */
export async function releaseDeadClaims(db: pg.Pool, deadDispatchers: string[]): Promise<number> {
  if (deadDispatchers.length === 0) return 0;
  const released = await db.query(
    sql`UPDATE webhook_deliveries SET claimed_by = NULL, claimed_until = NULL
        WHERE status = 'pending' AND claimed_by = ANY (${deadDispatchers}::text[])`,
  );
  return released.rowCount ?? 0;
}

/**
 * Records delivered attempts in groups: the first goes at once, and those that finish while a
 * statement runs wait for it and go together in the next (group commit), so a busy dispatcher
 * writes one statement per batch of deliveries and an idle one adds no delay.
 */
export function groupDeliveredRecords(db: pg.Pool): (attempt: DeliveredAttempt) => Promise<boolean> {
  type Waiting = { attempt: DeliveredAttempt; resolve: (recorded: boolean) => void; reject: (error: unknown) => void };
  let waiting: Waiting[] = [];
  let writing = false;
  const write = async () => {
    writing = true;
    while (waiting.length > 0) {
      const group = waiting;
      waiting = [];
      try {
        const recorded = await recordDeliveredAttempts(
          db,
          group.map((w) => w.attempt),
        );
        for (const w of group) w.resolve(recorded.has(w.attempt.deliveryId));
      } catch (error) {
        for (const w of group) w.reject(error);
      }
    }
    writing = false;
  };
  return (attempt) =>
    new Promise<boolean>((resolve, reject) => {
      waiting.push({ attempt, resolve, reject });
      if (!writing) void write();
    });
}

const running = new Set<() => void>();

/** Tells every dispatcher in this process that deliveries may be due now. */
export function wakeWebhookDispatchers(): void {
  for (const wake of running) wake();
}

export interface WebhookDispatcher {
  readonly id: string;
  /** Stops claiming and waits for the attempts in flight. */
  stop(): Promise<void>;
}

interface DispatcherOptions {
  db: pg.Pool;
  concurrency: number;
  /** Its id, which the worker holds as a liveness lock before starting it; a fresh one otherwise. */
  id?: string;
  pollIntervalMs?: number;
  delivery?: Omit<DeliveryOptions, "db" | "attempt" | "now">;
  caps?: DeliveryCaps;
  /** Holds deliveries back while orders need the process (yield-to-orders.ts); none by default. */
  gate?: DeliveryGate;
  log?: (line: string) => void;
}

export function startWebhookDispatcher(options: DispatcherOptions): WebhookDispatcher {
  const id = options.id ?? `webhooks-${randomUUID()}`;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const log = options.log ?? ((line: string) => logger("webhooks").warn(line));
  const inFlight = new Set<Promise<void>>();
  const recordDelivered = groupDeliveredRecords(options.db);
  let stopping = false;
  const waker = new Waker();
  running.add(waker.wake);

  /** Starts the claimed deliveries; each frees its slot, and wakes the loop, when it ends. */
  const attemptAll = (claimed: WebhookDeliveryRecord[]) => {
    for (const row of claimed) {
      const attempt: Promise<void> = attemptDelivery(row, { ...options.delivery, db: options.db, recordDelivered })
        .then((result) => recordWebhookAttempt(result, row.eventCreatedAt))
        .catch((error: Error) => log(`delivery ${row.id} failed: ${error.message}`))
        .finally(() => {
          inFlight.delete(attempt);
          waker.wake();
        });
      inFlight.add(attempt);
    }
  };

  const batch = Math.ceil(options.concurrency / 2);
  let lingerSince: number | undefined;
  const loop = async () => {
    while (!stopping) {
      const free = Math.min(options.concurrency - inFlight.size, options.gate?.allowance() ?? Infinity);
      // Every slot busy, or orders first: wait for a slot or a credit (either wakes the loop).
      if (free <= 0) {
        await waker.sleep(pollIntervalMs);
        continue;
      }
      // A slot or two free while others are busy: wait a moment for more, so that one claim (which
      // ranks every endpoint with work) fills several slots.
      if (free < batch && inFlight.size > 0) {
        lingerSince ??= performance.now();
        const left = CLAIM_LINGER_MS - (performance.now() - lingerSince);
        if (left > 0) {
          await waker.sleep(left);
          continue;
        }
      }
      lingerSince = undefined;
      waker.woken = false;
      const claimed = await claimSlots(options, id, free, log);
      attemptAll(claimed);
      // A full batch: more may be due. Otherwise wait for a poll, a wake or a free slot.
      if (claimed.length < free && !waker.woken && !stopping) await waker.sleep(pollIntervalMs);
    }
  };
  const looping = loop();

  return {
    id,
    async stop() {
      stopping = true;
      running.delete(waker.wake);
      waker.interrupt();
      await looping;
      await Promise.all(inFlight);
    },
  };
}

/** Up to `free` due deliveries, claimed for the dispatcher `id`; none when the claim fails (logged). */
async function claimSlots(
  options: Pick<DispatcherOptions, "db" | "delivery" | "caps" | "gate">,
  id: string,
  free: number,
  log: (line: string) => void,
): Promise<WebhookDeliveryRecord[]> {
  let claimed: WebhookDeliveryRecord[] = [];
  try {
    claimed = await claimDueDeliveries(options.db, id, free, options.delivery?.timeoutMs, options.caps);
    options.gate?.took(claimed.length);
  } catch (error) {
    log(`claim failed: ${(error as Error).message}`);
  }
  return claimed;
}

/** The dispatcher's sleep, which a wake cuts short; `woken` says a wake came since it was cleared. */
class Waker {
  woken = false;
  private wakeUp: (() => void) | undefined;

  readonly wake = (): void => {
    this.woken = true;
    this.wakeUp?.();
  };

  /** Ends the sleep under way, if any, without counting as a wake. */
  interrupt(): void {
    this.wakeUp?.();
  }

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
