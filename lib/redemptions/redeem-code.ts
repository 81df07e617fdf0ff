// POST /rdmbr: redeems a code to a player through the supplier. The redemption is recorded before
// the supplier is asked (its id is our reference there) and updated with the outcome; only a mask
// of the code is kept.
import { getPool } from "../db/pool";
import { ApiError } from "../http/errors";
import type { ApiCaller } from "../auth/authenticate-api-key";
import type { Supplier } from "../suppliers/types";

export function maskRedeemCode(code: string): string {
  const groups = code.toUpperCase().split("-");
  return groups.map((group, i) => (i === 0 || i === groups.length - 1 ? group : "*".repeat(group.length))).join("-");
}

export async function redeemCode(caller: ApiCaller, supplier: Supplier, input: { playerId: string; code: string; trxid?: string }) {
  const pool = getPool();
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO redemptions (account_id, api_key_id, kind, player_id, code_mask, trxid, outcome) VALUES ($1, $2, 'redeem-br', $3, $4, $5, 'pending') RETURNING id`,
    [caller.accountId, caller.keyId, input.playerId, maskRedeemCode(input.code), input.trxid ?? null],
  );
  const id = rows[0].id;
  const outcome = await supplier.redeemCode({ reference: `SVCRDM-${id}`, playerId: input.playerId, code: input.code.toUpperCase() });
  await pool.query(`UPDATE redemptions SET outcome = $2, nickname = $3 WHERE id = $1`, [
    id,
    outcome.status,
    outcome.status === "redeemed" ? (outcome.nickname ?? null) : null,
  ]);
  switch (outcome.status) {
    case "redeemed":
      return { success: true as const, redeemed: true as const, playerId: input.playerId, ...(outcome.nickname ? { nickname: outcome.nickname } : {}), redemptionId: id };
    case "invalid_code":
      throw new ApiError("INVALID_CODE");
    case "code_used":
      throw new ApiError("CODE_USED");
    case "player_not_found":
      throw new ApiError("PLAYER_NOT_FOUND");
    default:
      throw new ApiError("SUPPLIER_UNAVAILABLE", { headers: { "retry-after": "5" } });
  }
}
