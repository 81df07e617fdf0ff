import { publicRoute } from "@/lib/http/public-route";
import { verifyPlayer } from "@/lib/redemptions/sql/verify-player";
import { getCallerSupplier } from "@/lib/suppliers/get-supplier";
import { BrVerifyBody, brVerifyAliases, playerCheckRoute } from "@/lib/api-schemas/verify-schemas";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const POST = publicRoute({
  method: "POST",
  operationId: "verifyBrPlayer",
  path: "/brvvfy",
  ...playerCheckRoute,
  summary: "Verify a battle-royale player id (in-game name check) without ordering",
  description:
    "200 with the nickname when the player exists; 404 PLAYER_NOT_FOUND when not; 503 SUPPLIER_UNAVAILABLE (retry) when the check cannot be made now. " +
    "A `trxid` is recorded as your reference only: a check changes nothing, so repeating it (with any trxid) asks again and answers the current state. " +
    "An account that has never been funded is refused with 403 API_NOT_ELIGIBLE and nothing is sent to the supplier (README: Configuration, SUPPLIER_CALLS_REQUIRE_FUNDING).",
  body: BrVerifyBody,
  aliases: brVerifyAliases,
  example: {
    body: { playerId: "5123456789" },
    responses: {
      found: {
        summary: "The player exists",
        value: { success: true, valid: true, game: "br", playerId: "5123456789", nickname: "Player-6789" },
      },
    },
  },
  clientSample: (call) => `const { nickname } = await ${call};`,
  handle: ({ caller, body }) =>
    verifyPlayer(caller, getCallerSupplier(caller), { game: "br", playerId: body.playerId, trxid: body.trxid }),
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
