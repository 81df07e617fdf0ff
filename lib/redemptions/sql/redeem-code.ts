// POST /rdmbr: redeems a code to a player through the supplier. The redemption is recorded before
// the supplier is asked (its id is our reference there, which the supplier deduplicates on) and
// updated with the outcome. The code itself is never stored (fingerprint-redeem-code.ts).
//
// With a trxid the call is idempotent per account (README: Verify and redeem):
// - a final outcome (redeemed, INVALID_CODE, CODE_USED, PLAYER_NOT_FOUND) is stored and a retry
//   answers it again, with `Idempotent-Replayed: true`, instead of asking the supplier anew (which
//   would now say CODE_USED for a code this very request redeemed);
// - SUPPLIER_UNAVAILABLE is not final: a retry asks the supplier again, under the same reference,
//   so an attempt whose answer was lost is found rather than repeated;
// - a retry while the first attempt is still with the supplier is 429 DUPLICATE_IN_FLIGHT, as for
//   orders; an attempt pending longer than the lease is presumed dead and may be taken over;
// - the same trxid with another player or code is 409 IDEMPOTENCY_MISMATCH, from another key of the
//   account 403 FORBIDDEN.
import { getPool } from "../../db/pool";
import { sql } from "../../db/run-sql";
import { ApiError } from "../../http/errors";
import type { ApiCaller } from "../../auth/authenticate-api-key";
import type { RedeemOutcome, Supplier } from "../../suppliers/types";
import type { RedemptionRecord } from "../redemption-record";
import { permuteId } from "../../ids/permute-id";
import { fingerprintRedeemCode, normaliseRedeemCode, redeemCodeLast4 } from "../fingerprint-redeem-code";

/** Outcomes that asking the supplier again cannot change. */
const FINAL_OUTCOMES = new Set<string>(["redeemed", "invalid_code", "code_used", "player_not_found"]);

/**
 * A pending attempt older than this is presumed dead (its process stopped mid-call) and a retry
 * takes it over. Longer than any supplier timeout (H2H_TIMEOUT_MS, SANDBOX_SLOW_MS), so a live
 * attempt is never taken over; even if it were, both ask the supplier under one reference.
 */
const REDEEM_IN_FLIGHT_LEASE_SECONDS = 60;

export interface RedeemAnswer {
  body: { success: true; redeemed: true; playerId: string; nickname?: string; redemptionId: number };
  /** True when the answer is a stored outcome of an earlier request with the same trxid. */
  replayed: boolean;
}

export interface RedeemInput {
  playerId: string;
  code: string;
  trxid?: string;
}

/** The answer for a final outcome: the same for the first request and every replay of it. */
function answerFor(row: RedemptionRecord, replayed: boolean): RedeemAnswer {
  const headers = replayed ? { "idempotent-replayed": "true" } : undefined;
  switch (row.outcome) {
    case "redeemed":
      return {
        body: {
          success: true,
          redeemed: true,
          playerId: row.playerId,
          ...(row.nickname ? { nickname: row.nickname } : {}),
          // redemptions.id counts every account's verifies and redeems: shown permuted (lib/ids).
          redemptionId: permuteId("redemption", row.id),
        },
        replayed,
      };
    case "invalid_code":
      throw new ApiError("INVALID_CODE", { headers });
    case "code_used":
      throw new ApiError("CODE_USED", { headers });
    case "player_not_found":
      throw new ApiError("PLAYER_NOT_FOUND", { headers });
    default:
      throw new ApiError("SUPPLIER_UNAVAILABLE", { headers: { "retry-after": "5" } });
  }
}

/** Inserts a new attempt, or claims the earlier one of the same trxid; otherwise answers for it. */
async function openAttempt(
  caller: ApiCaller,
  input: RedeemInput,
  fingerprint: string,
): Promise<RedemptionRecord | RedeemAnswer> {
  const pool = getPool();
  const trxid = input.trxid ?? null;
  const last4 = redeemCodeLast4(input.code);
  const inserted = await pool.query<RedemptionRecord>(
    sql`INSERT INTO redemptions (account_id, api_key_id, kind, player_id, code_fingerprint, code_last4, trxid,
                                 idempotency_key, outcome, attempted_at)
        VALUES (${caller.accountId}, ${caller.keyId}, 'redeem-br', ${input.playerId}, ${fingerprint}, ${last4},
                ${trxid}, ${trxid}, 'pending', now())
        ON CONFLICT (account_id, idempotency_key) DO NOTHING
        RETURNING id, api_key_id AS "apiKeyId", player_id AS "playerId", code_fingerprint AS "codeFingerprint",
                  outcome, nickname`,
  );
  if (inserted.rows[0]) return inserted.rows[0];

  // Claims a non-final attempt of the same request again: one whose supplier was unavailable, or
  // one pending past the lease. Exactly one concurrent retry wins the row.
  const reclaimed = await pool.query<RedemptionRecord>(
    sql`UPDATE redemptions SET outcome = 'pending', attempted_at = now()
         WHERE account_id = ${caller.accountId} AND idempotency_key = ${trxid} AND api_key_id = ${caller.keyId}
           AND player_id = ${input.playerId} AND code_fingerprint = ${fingerprint}
           AND (outcome = 'unavailable'
                OR (outcome = 'pending' AND attempted_at < now() - make_interval(secs => ${REDEEM_IN_FLIGHT_LEASE_SECONDS})))
        RETURNING id, api_key_id AS "apiKeyId", player_id AS "playerId", code_fingerprint AS "codeFingerprint",
                  outcome, nickname`,
  );
  if (reclaimed.rows[0]) return reclaimed.rows[0];

  const existing = (
    await pool.query<RedemptionRecord>(
      sql`SELECT id, api_key_id AS "apiKeyId", player_id AS "playerId", code_fingerprint AS "codeFingerprint",
                 outcome, nickname
            FROM redemptions WHERE account_id = ${caller.accountId} AND idempotency_key = ${trxid}`,
    )
  ).rows[0];
  if (!existing) throw new Error(`redemption with trxid ${trxid} vanished while being read`);
  if (existing.apiKeyId !== caller.keyId) throw new ApiError("FORBIDDEN");
  if (existing.playerId !== input.playerId || existing.codeFingerprint !== fingerprint)
    throw new ApiError("IDEMPOTENCY_MISMATCH");
  if (FINAL_OUTCOMES.has(existing.outcome)) return answerFor(existing, true);
  throw new ApiError("DUPLICATE_IN_FLIGHT");
}

export async function redeemCode(caller: ApiCaller, supplier: Supplier, input: RedeemInput): Promise<RedeemAnswer> {
  const opened = await openAttempt(caller, input, fingerprintRedeemCode(input.code));
  if ("body" in opened) return opened;

  let outcome: RedeemOutcome;
  try {
    outcome = await supplier.redeemCode({
      reference: `SVCRDM-${opened.id}`,
      playerId: input.playerId,
      code: normaliseRedeemCode(input.code),
    });
  } catch (error) {
    // Not an answer from the supplier: free the attempt for a retry rather than leave it pending.
    await getPool().query(sql`UPDATE redemptions SET outcome = 'unavailable' WHERE id = ${opened.id}`);
    throw error;
  }
  const nickname = outcome.status === "redeemed" ? (outcome.nickname ?? null) : null;
  await getPool().query(
    sql`UPDATE redemptions SET outcome = ${outcome.status}, nickname = ${nickname} WHERE id = ${opened.id}`,
  );
  return answerFor({ ...opened, outcome: outcome.status, nickname }, false);
}
