// One attempt of one delivery, recorded, and the next one scheduled (next_attempt_at, claimed by
// dispatch-webhooks.ts when due). Recording is guarded on the attempt's number, so an attempt is
// never recorded twice; one cut off by a crash is made again under the same webhook-id (at least once).
import { Webhook } from "standardwebhooks";
import type { WebhookEndpoint } from "../../generated/prisma/client";
import type pg from "pg";
import { getPool, withTransaction } from "../../db/pool";
import {
  resolveDestination,
  webhookPolicyFromEnv,
  DestinationRefused,
  type DestinationPolicy,
} from "../check-destination";
import { sendWebhook, type SendOutcome } from "../send-webhook";
import { delayBeforeAttempt, endpointPauseMs, MAX_ATTEMPTS } from "../retry-schedule";
import { openSecret } from "../endpoint-secret";
import { NOTIFY_ENDPOINT_DISABLED_TASK } from "../event-types";
import type { WebhookDeliveryRecord } from "../webhook-record";
import { prepared, sql } from "../../db/run-sql";
import { firstRow } from "../../db/first-row";

/** Only a 2xx answer within this counts as delivered. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** An endpoint that has failed every attempt for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60 * 1000;

export interface DeliveryOptions {
  /** A parameter so tests can walk the two-day schedule without waiting for it. */
  now?: Date;
  /** The attempt to make; by default the next one after those recorded on the delivery row. */
  attempt?: number;
  timeoutMs?: number;
  policy?: DestinationPolicy;
  random?: () => number;
  /** Where to read and record (the dispatcher's own pool); the application's pool otherwise. */
  db?: pg.Pool;
  /** Records a delivered attempt, true if it was recorded (the dispatcher batches them); one statement per attempt otherwise. */
  recordDelivered?: (attempt: DeliveredAttempt) => Promise<boolean>;
}

export type DeliveryResult =
  | { outcome: "skipped"; why: string }
  | { outcome: "delivered"; attempt: number; httpStatus: number }
  | { outcome: "retrying"; attempt: number; nextAttemptAt: Date; httpStatus?: number; error?: string }
  | { outcome: "failed"; attempt: number; reason: string; endpointDisabled: boolean };

/** The body every attempt of an event sends, byte for byte: `{ type, timestamp, livemode, data }`. */
function webhookBody(event: { type: string; createdAt: Date; livemode: boolean; data: unknown }): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    livemode: event.livemode,
    data: event.data,
  });
}

/** Standard Webhooks headers; during a rotation's overlap the previous secret signs too. */
function signedHeaders(
  row: Pick<WebhookDeliveryRecord, "eventPublicId" | "secret" | "previousSecret" | "previousSecretExpiresAt">,
  body: string,
  now: Date,
) {
  const secrets = [openSecret(row.secret)];
  if (row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now)
    secrets.push(openSecret(row.previousSecret));
  return {
    "content-type": "application/json",
    "user-agent": "topup-webhooks/1",
    "webhook-id": row.eventPublicId,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(row.eventPublicId, now, body)).join(" "),
  };
}

/** Makes the next attempt (or `options.attempt`) of a delivery already read, and records it. */
export async function attemptDelivery(
  row: WebhookDeliveryRecord,
  options: DeliveryOptions = {},
): Promise<DeliveryResult> {
  const now = options.now ?? new Date();
  const db = options.db ?? getPool();
  if (row.status !== "pending") return { outcome: "skipped", why: `already ${row.status}` };
  const attempt = options.attempt ?? row.attempts + 1;
  if (row.attempts >= attempt) return { outcome: "skipped", why: `attempt ${attempt} already made` };
  if (row.disabledAt) {
    await db.query(sql`UPDATE webhook_deliveries
        SET status = 'failed', fail_reason = 'endpoint disabled', next_attempt_at = NULL, claimed_by = NULL,
          claimed_until = NULL
        WHERE id = ${row.id} AND status = 'pending'`);
    return { outcome: "failed", attempt: row.attempts, reason: "endpoint disabled", endpointDisabled: true };
  }

  const body = webhookBody({
    type: row.eventType,
    createdAt: row.eventCreatedAt,
    livemode: row.livemode,
    data: row.eventData,
  });
  let sent: SendOutcome;
  try {
    const destination = await resolveDestination(row.url, options.policy ?? webhookPolicyFromEnv());
    sent = await sendWebhook({
      url: destination.url,
      pinned: destination,
      headers: signedHeaders(row, body, now),
      body,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    });
  } catch (error) {
    if (!(error instanceof DestinationRefused)) throw error;
    sent = { error: `destination refused: ${error.message}`, durationMs: 0 };
  }
  const status = sent.httpStatus;
  if (status !== undefined && status >= 200 && status < 300)
    return recordDelivered(db, row, attempt, now, sent, status, options.recordDelivered);
  return withTransaction((client) => recordFailure(client, row, attempt, now, sent, options.random), db);
}

/** A delivered attempt to record (the common case). */
export interface DeliveredAttempt {
  deliveryId: number;
  attempt: number;
  at: Date;
  httpStatus: number;
  responseBody: string | null;
  durationMs: number;
}

/**
 * Records delivered attempts, any number in one statement, so one round trip and one commit: each
 * guarded on its attempt (a concurrent run of the same attempt waits for the row lock, then finds it
 * recorded), its attempt logged, the delivery done and its claim dropped, the endpoint's failing
 * streak cleared. Returns the delivery ids it recorded.
 */
export async function recordDeliveredAttempts(db: pg.Pool, attempts: DeliveredAttempt[]): Promise<Set<number>> {
  const { rows } = await db.query<{ id: number }>(
    prepared(
      "webhooks-record-delivered",
      sql`
  WITH input AS (
    SELECT * FROM unnest(${attempts.map((a) => a.deliveryId)}::bigint[], ${attempts.map((a) => a.attempt)}::int[],
                         ${attempts.map((a) => a.at)}::timestamptz[], ${attempts.map((a) => a.httpStatus)}::int[],
                         ${attempts.map((a) => a.responseBody)}::text[], ${attempts.map((a) => a.durationMs)}::int[])
      AS t(id, attempt, at, http_status, response_body, duration_ms)
  ), delivery AS (
    UPDATE webhook_deliveries d
       SET status = 'delivered', attempts = i.attempt, last_attempt_at = i.at, delivered_at = i.at, next_attempt_at = NULL, claimed_by = NULL, claimed_until = NULL
      FROM input i
     WHERE d.id = i.id AND d.status = 'pending' AND d.attempts < i.attempt
    RETURNING d.id, d.endpoint_id
  ), attempt AS (
    INSERT INTO webhook_attempts (delivery_id, attempted_at, http_status, response_body, error, duration_ms)
    SELECT i.id, i.at, i.http_status, i.response_body, NULL, i.duration_ms FROM input i JOIN delivery USING (id)
  ), endpoint AS (
    UPDATE webhook_endpoints SET failing_since = NULL, consecutive_failures = 0, paused_until = NULL
     WHERE id IN (SELECT endpoint_id FROM delivery) AND (failing_since IS NOT NULL OR consecutive_failures > 0)
  )
  SELECT id::int AS id FROM delivery`,
    ),
  );
  return new Set(rows.map((r) => r.id));
}

async function recordDelivered(
  db: pg.Pool,
  row: WebhookDeliveryRecord,
  attempt: number,
  now: Date,
  sent: SendOutcome,
  status: number,
  record: DeliveryOptions["recordDelivered"],
): Promise<DeliveryResult> {
  const delivered: DeliveredAttempt = {
    deliveryId: row.id,
    attempt,
    at: now,
    httpStatus: status,
    responseBody: sent.responseBody ?? null,
    durationMs: sent.durationMs,
  };
  const recorded = record ? await record(delivered) : (await recordDeliveredAttempts(db, [delivered])).has(row.id);
  // Nothing updated: removed with its endpoint while the request was out, or recorded already.
  if (!recorded) return { outcome: "skipped", why: `attempt ${attempt} already recorded, or the delivery was removed` };
  return { outcome: "delivered", attempt, httpStatus: status };
}

async function recordFailure(
  client: pg.PoolClient,
  row: WebhookDeliveryRecord,
  attempt: number,
  now: Date,
  sent: SendOutcome,
  random?: () => number,
): Promise<DeliveryResult> {
  // The row lock orders this against a concurrent run of the same attempt: the second finds it recorded.
  const locked = await client.query<Pick<WebhookDeliveryRecord, "attempts" | "status">>(
    sql`SELECT attempts, status FROM webhook_deliveries WHERE id = ${row.id} FOR UPDATE`,
  );
  // Gone: the endpoint was removed while the request was out.
  if (!locked.rows[0]) return { outcome: "skipped", why: "the delivery was removed with its endpoint" };
  if (locked.rows[0].status !== "pending" || locked.rows[0].attempts >= attempt) {
    return { outcome: "skipped", why: `attempt ${attempt} already recorded` };
  }
  await client.query(
    sql`INSERT INTO webhook_attempts (delivery_id, attempted_at, http_status, response_body, error, duration_ms)
        VALUES (${row.id}, ${now}, ${sent.httpStatus ?? null}, ${sent.responseBody ?? null}, ${sent.error ?? null},
          ${sent.durationMs})`,
  );
  const status = sent.httpStatus;

  const failed: FailedAttempt = { client, row, attempt, now };
  if (status === 410) return disableEndpoint(failed, "it answered 410 Gone");
  // Waits count from the end of this attempt, so a retry never jumps ahead of work that was queued
  // while a slow attempt ran.
  const ended = new Date(now.getTime() + sent.durationMs);
  const retryAfter = status === 429 || status === 503 ? sent.retryAfterSeconds : undefined;
  const failing = await client.query<{
    failingSince: NonNullable<WebhookEndpoint["failingSince"]>;
    consecutiveFailures: number;
  }>(
    sql`UPDATE webhook_endpoints
           SET failing_since = COALESCE(failing_since, ${now}), consecutive_failures = consecutive_failures + 1
         WHERE id = ${row.endpointId}
     RETURNING failing_since AS "failingSince", consecutive_failures AS "consecutiveFailures"`,
  );
  const { failingSince, consecutiveFailures } = firstRow(failing.rows, "UPDATE webhook_endpoints");
  if (now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS) {
    return disableEndpoint(failed, `every attempt failed since ${failingSince.toISOString()}`);
  }
  // The endpoint as a whole waits too, longer with each failure in a row: its other deliveries
  // are not claimed meanwhile, so a dead endpoint holds no slot others could use.
  const pausedUntil = new Date(ended.getTime() + endpointPauseMs(consecutiveFailures, retryAfter, random));
  await client.query(
    sql`UPDATE webhook_endpoints SET paused_until = GREATEST(paused_until, ${pausedUntil}) WHERE id = ${row.endpointId}`,
  );
  const delay = delayBeforeAttempt(attempt + 1, retryAfter, random);
  if (delay === undefined) return failDelivery(failed, `gave up after ${MAX_ATTEMPTS} attempts`, false);
  const nextAttemptAt = new Date(ended.getTime() + delay);
  // Due again at nextAttemptAt, when a dispatcher claims it.
  await client.query(
    sql`UPDATE webhook_deliveries
        SET attempts = ${attempt}, last_attempt_at = ${now}, next_attempt_at = ${nextAttemptAt}, claimed_by = NULL,
          claimed_until = NULL
        WHERE id = ${row.id}`,
  );
  return { outcome: "retrying", attempt, nextAttemptAt, httpStatus: status, error: sent.error };
}

/** A failed attempt being recorded, in the transaction holding its delivery's row lock. */
interface FailedAttempt {
  client: pg.PoolClient;
  row: WebhookDeliveryRecord;
  attempt: number;
  now: Date;
}

/** The delivery is given up: no further attempt. */
async function failDelivery(
  { client, row, attempt, now }: FailedAttempt,
  reason: string,
  endpointDisabled: boolean,
): Promise<DeliveryResult> {
  await client.query(sql`UPDATE webhook_deliveries
      SET status = 'failed', attempts = ${attempt}, last_attempt_at = ${now}, next_attempt_at = NULL,
        fail_reason = ${reason}, claimed_by = NULL, claimed_until = NULL
      WHERE id = ${row.id}`);
  return { outcome: "failed", attempt, reason, endpointDisabled };
}

/** The endpoint is disabled (its holder told once, through a job) and the delivery given up. */
async function disableEndpoint(failed: FailedAttempt, reason: string): Promise<DeliveryResult> {
  const { client, row, now } = failed;
  const disabled = await client.query(
    sql`UPDATE webhook_endpoints SET disabled_at = ${now}, disabled_reason = ${reason}, updated_at = ${now}
        WHERE id = ${row.endpointId} AND disabled_at IS NULL RETURNING id`,
  );
  if (disabled.rowCount) {
    await client.query(
      sql`SELECT graphile_worker.add_job(${NOTIFY_ENDPOINT_DISABLED_TASK}, json_build_object('endpointId',
            ${row.endpointId}::int), max_attempts := 10)`,
    );
  }
  return failDelivery(failed, `endpoint disabled: ${reason}`, true);
}
