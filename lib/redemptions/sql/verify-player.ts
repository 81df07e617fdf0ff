// Player checks through the supplier interface, recorded per account in `redemptions`.
import { getPool } from "../../db/pool";
import { ApiError } from "../../http/errors";
import type { ApiCaller } from "../../auth/authenticate-api-key";
import type { Supplier, VerifyOutcome } from "../../suppliers/types";
import { sql } from "../../db/run-sql";

export async function verifyPlayer(
  caller: ApiCaller,
  supplier: Supplier,
  input: { game: "br" | "moba"; playerId: string; zoneId?: string; trxid?: string },
) {
  const outcome: VerifyOutcome = await supplier.verifyPlayer({
    game: input.game,
    playerId: input.playerId,
    zoneId: input.zoneId,
  });
  await getPool().query(
    sql`INSERT INTO redemptions (account_id, api_key_id, kind, player_id, zone_id, trxid, outcome, nickname)
        VALUES (${caller.accountId}, ${caller.keyId}, ${`verify-${input.game}`}, ${input.playerId},
          ${input.zoneId ?? null}, ${input.trxid ?? null}, ${outcome.status},
          ${outcome.status === "found" ? outcome.nickname : null})`,
  );
  if (outcome.status === "not_found") throw new ApiError("PLAYER_NOT_FOUND");
  if (outcome.status === "unavailable") throw new ApiError("SUPPLIER_UNAVAILABLE", { headers: { "retry-after": "5" } });
  return {
    success: true as const,
    valid: true as const,
    game: input.game,
    playerId: input.playerId,
    ...(input.zoneId ? { zoneId: input.zoneId } : {}),
    nickname: outcome.nickname,
  };
}
