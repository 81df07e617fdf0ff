import { jsonResponse } from "@/lib/http/errors";
import { publicRoute } from "@/lib/http/public-route";
import { verifyPlayer } from "@/lib/redemptions/sql/verify-player";
import { redeemCode } from "@/lib/redemptions/sql/redeem-code";
import { getSupplier } from "@/lib/suppliers/get-supplier";
import {
  BrVerifyBody,
  MobaVerifyBody,
  RedeemBody,
  RedeemResponse,
  VerifyResponse,
  brVerifyAliases,
  mobaVerifyAliases,
} from "@/lib/api-schemas/verify-schemas";

export const postBrVerify = publicRoute({
  method: "POST",
  path: "/brvvfy",
  tag: "Verify and redeem",
  summary: "Verify a battle-royale player id (in-game name check) without ordering",
  description:
    "200 with the nickname when the player exists; 404 PLAYER_NOT_FOUND when not; 503 SUPPLIER_UNAVAILABLE (retry) when the check cannot be made now. " +
    "A `trxid` is recorded as your reference only: a check changes nothing, so repeating it (with any trxid) asks again and answers the current state.",
  body: BrVerifyBody,
  aliases: brVerifyAliases,
  response: VerifyResponse,
  errors: ["PLAYER_NOT_FOUND", "SUPPLIER_UNAVAILABLE"],
  handle: ({ caller, body }) =>
    verifyPlayer(caller, getSupplier(), { game: "br", playerId: body.playerId, trxid: body.trxid }),
});

export const postMobaVerify = publicRoute({
  method: "POST",
  path: "/mobavfy",
  tag: "Verify and redeem",
  summary: "Verify a MOBA user and zone (region / profile check)",
  description:
    "200 with the nickname when the user exists in that zone; 404 PLAYER_NOT_FOUND when not; 503 SUPPLIER_UNAVAILABLE (retry).",
  body: MobaVerifyBody,
  aliases: mobaVerifyAliases,
  response: VerifyResponse,
  errors: ["PLAYER_NOT_FOUND", "SUPPLIER_UNAVAILABLE"],
  handle: ({ caller, body }) =>
    verifyPlayer(caller, getSupplier(), {
      game: "moba",
      playerId: body.userId,
      zoneId: body.zoneId,
      trxid: body.trxid,
    }),
});

export const postRedeem = publicRoute({
  method: "POST",
  path: "/rdmbr",
  tag: "Verify and redeem",
  action: "redeem",
  summary: "Redeem a code to a battle-royale player",
  description:
    "The code is groups of 2-10 letters or digits separated by hyphens. 200 when redeemed; 400 INVALID_CODE when the code " +
    "is not of that form (nothing is sent to the supplier) or the supplier says it is invalid; 409 CODE_USED; " +
    "404 PLAYER_NOT_FOUND; 503 SUPPLIER_UNAVAILABLE (retry). A missing or non-string code is 400 INVALID BODY. Paused by MAINTENANCE. " +
    "With a `trxid` the call is idempotent per account: a retry answers the first final outcome again (redeemed, INVALID_CODE, " +
    "CODE_USED, PLAYER_NOT_FOUND) with the header `Idempotent-Replayed: true`; after SUPPLIER_UNAVAILABLE a retry asks the supplier " +
    "again; a retry while the first is still with the supplier answers 429 DUPLICATE_IN_FLIGHT; the same trxid with another " +
    "player or code answers 409 IDEMPOTENCY_MISMATCH, from another key of your account 403 FORBIDDEN.",
  body: RedeemBody,
  aliases: brVerifyAliases,
  response: RedeemResponse,
  errors: [
    "PLAYER_NOT_FOUND",
    "INVALID_CODE",
    "CODE_USED",
    "SUPPLIER_UNAVAILABLE",
    "IDEMPOTENCY_MISMATCH",
    "DUPLICATE_IN_FLIGHT",
    "FORBIDDEN",
  ],
  handle: async ({ caller, body }) => {
    const { body: answer, replayed } = await redeemCode(caller, getSupplier(), body);
    return jsonResponse(answer, 200, replayed ? { "idempotent-replayed": "true" } : undefined);
  },
});
