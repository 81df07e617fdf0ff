import { publicRoute } from "@/lib/http/public-route";
import { verifyPlayer } from "@/lib/redemptions/sql/verify-player";
import { getCallerSupplier } from "@/lib/suppliers/get-supplier";
import { MobaVerifyBody, mobaVerifyAliases, playerCheckRoute } from "@/lib/api-schemas/verify-schemas";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const POST = publicRoute({
  method: "POST",
  operationId: "verifyMobaPlayer",
  path: "/mobavfy",
  ...playerCheckRoute,
  summary: "Verify a MOBA user and zone (region / profile check)",
  description:
    "200 with the nickname when the user exists in that zone; 404 PLAYER_NOT_FOUND when not; 503 SUPPLIER_UNAVAILABLE (retry). " +
    "An account that has never been funded is refused with 403 API_NOT_ELIGIBLE and nothing is sent to the supplier (README: Configuration, SUPPLIER_CALLS_REQUIRE_FUNDING).",
  body: MobaVerifyBody,
  aliases: mobaVerifyAliases,
  example: {
    body: { userId: "98765432", zoneId: "2021" },
    responses: {
      found: {
        summary: "The user exists in that zone",
        value: {
          success: true,
          valid: true,
          game: "moba",
          playerId: "98765432",
          zoneId: "2021",
          nickname: "Player-5432",
        },
      },
    },
  },
  clientSample: (call) => `const { nickname } = await ${call};`,
  handle: ({ caller, body }) =>
    verifyPlayer(caller, getCallerSupplier(caller), {
      game: "moba",
      playerId: body.userId,
      zoneId: body.zoneId,
      trxid: body.trxid,
    }),
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
