// The worker's webhook dispatcher: claims due deliveries from the outbox (webhook_deliveries) in
// batches, not a graphile-worker job each, which would add an add_job to every settling transaction
// and three commits to every delivery. Claims and delivered attempts are written with
// synchronous_commit off: a commit lost in a crash only repeats an attempt under the same webhook-id.
// A claim lapses after DELIVERY_TIMEOUT_MS plus a margin, or at once when the worker's sweep finds
// its dispatcher dead (run-worker.ts). Settlements in this process wake it; others are found by polling.
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
import { prepared, sql } from "../../db/run-sql";

/** How long a claim holds beyond the request's own timeout (recording, a slow database). */
export const CLAIM_MARGIN_MS = 30_000;
/** How often an idle dispatcher looks for due deliveries written by other processes. */
export const DEFAULT_POLL_INTERVAL_MS = 250;

/** Claims up to `limit` due deliveries for `dispatcherId`; each comes back with its event and endpoint. */
export async function claimDueDeliveries(
  db: pg.Pool,
  dispatcherId: string,
  limit: number,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<WebhookDeliveryRecord[]> {
  const { rows } = await db.query<WebhookDeliveryRecord>(
    prepared(
      "webhooks-claim-due",
      sql`WITH claimed AS (
            UPDATE webhook_deliveries
               SET claimed_by = ${dispatcherId},
                   claimed_until = now() + ${timeoutMs + CLAIM_MARGIN_MS} * interval '1 millisecond'
             WHERE id IN (SELECT id FROM webhook_deliveries
                           WHERE status = 'pending' AND next_attempt_at <= now()
                             AND (claimed_until IS NULL OR claimed_until < now())
                           ORDER BY next_attempt_at LIMIT ${limit}
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

export function startWebhookDispatcher(options: {
  db: pg.Pool;
  concurrency: number;
  /** Its id, which the worker holds as a liveness lock before starting it; a fresh one otherwise. */
  id?: string;
  pollIntervalMs?: number;
  delivery?: Omit<DeliveryOptions, "db" | "attempt" | "now">;
  log?: (line: string) => void;
}): WebhookDispatcher {
  const id = options.id ?? `webhooks-${randomUUID()}`;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const log = options.log ?? ((line: string) => console.log(`[webhooks] ${line}`));
  const inFlight = new Set<Promise<void>>();
  const recordDelivered = groupDeliveredRecords(options.db);
  let stopping = false;
  let woken = false;
  let wakeUp: (() => void) | undefined;
  const wake = () => {
    woken = true;
    wakeUp?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });
  running.add(wake);

  const loop = async () => {
    while (!stopping) {
      const free = options.concurrency - inFlight.size;
      // Every slot busy: wait for one to finish (it wakes the loop).
      if (free <= 0) {
        await sleep(pollIntervalMs);
        continue;
      }
      woken = false;
      let claimed: WebhookDeliveryRecord[] = [];
      try {
        claimed = await claimDueDeliveries(options.db, id, free, options.delivery?.timeoutMs);
      } catch (error) {
        log(`claim failed: ${(error as Error).message}`);
      }
      for (const row of claimed) {
        const attempt: Promise<void> = attemptDelivery(row, { ...options.delivery, db: options.db, recordDelivered })
          .then(() => undefined)
          .catch((error: Error) => log(`delivery ${row.id} failed: ${error.message}`))
          .finally(() => {
            inFlight.delete(attempt);
            wake();
          });
        inFlight.add(attempt);
      }
      // A full batch: more may be due. Otherwise wait for a poll, a wake or a free slot.
      if (claimed.length < free && !woken && !stopping) await sleep(pollIntervalMs);
    }
  };
  const looping = loop();

  return {
    id,
    async stop() {
      stopping = true;
      running.delete(wake);
      wakeUp?.();
      await looping;
      await Promise.all(inFlight);
    },
  };
}
