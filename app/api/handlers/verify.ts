import { publicRoute } from "@/lib/http/public-route";
import { verifyPlayer } from "@/lib/redemptions/verify-player";
import { redeemCode } from "@/lib/redemptions/redeem-code";
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
  description: "200 with the nickname when the player exists; 404 PLAYER_NOT_FOUND when not; 503 SUPPLIER_UNAVAILABLE (retry) when the check cannot be made now.",
  body: BrVerifyBody,
  aliases: brVerifyAliases,
  response: VerifyResponse,
  errors: ["PLAYER_NOT_FOUND", "SUPPLIER_UNAVAILABLE"],
  handle: ({ caller, body }) => verifyPlayer(caller, getSupplier(), { game: "br", playerId: body.playerId, trxid: body.trxid }),
});

export const postMobaVerify = publicRoute({
  method: "POST",
  path: "/mobavfy",
  tag: "Verify and redeem",
  summary: "Verify a MOBA user and zone (region / profile check)",
  description: "200 with the nickname when the user exists in that zone; 404 PLAYER_NOT_FOUND when not; 503 SUPPLIER_UNAVAILABLE (retry).",
  body: MobaVerifyBody,
  aliases: mobaVerifyAliases,
  response: VerifyResponse,
  errors: ["PLAYER_NOT_FOUND", "SUPPLIER_UNAVAILABLE"],
  handle: ({ caller, body }) =>
    verifyPlayer(caller, getSupplier(), { game: "moba", playerId: body.userId, zoneId: body.zoneId, trxid: body.trxid }),
});

export const postRedeem = publicRoute({
  method: "POST",
  path: "/rdmbr",
  tag: "Verify and redeem",
  action: "redeem",
  summary: "Redeem a code to a battle-royale player",
  description:
    "The code is groups of letters and digits separated by hyphens (else 400 INVALID BODY). 200 when redeemed; 400 INVALID_CODE; " +
    "409 CODE_USED; 404 PLAYER_NOT_FOUND; 503 SUPPLIER_UNAVAILABLE (retry). Paused by MAINTENANCE.",
  body: RedeemBody,
  aliases: brVerifyAliases,
  response: RedeemResponse,
  errors: ["PLAYER_NOT_FOUND", "INVALID_CODE", "CODE_USED", "SUPPLIER_UNAVAILABLE"],
  handle: ({ caller, body }) => redeemCode(caller, getSupplier(), body),
});
