import { jsonResponse } from "@/lib/http/errors";
import { publicRoute } from "@/lib/http/public-route";
import { redeemCode } from "@/lib/redemptions/sql/redeem-code";
import { getCallerSupplier } from "@/lib/suppliers/get-supplier";
import { RedeemBody, RedeemResponse, brVerifyAliases } from "@/lib/api-schemas/verify-schemas";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const POST = publicRoute({
  method: "POST",
  operationId: "redeemCode",
  path: "/rdmbr",
  tag: "Verify and redeem",
  action: "redeem",
  supplierCall: true,
  summary: "Redeem a code to a battle-royale player",
  description:
    "The code is groups of 2-10 letters or digits separated by hyphens. 200 when redeemed; 400 INVALID_CODE when the code " +
    "is not of that form (nothing is sent to the supplier) or the supplier says it is invalid; 409 CODE_USED; " +
    "404 PLAYER_NOT_FOUND; 503 SUPPLIER_UNAVAILABLE (retry). A missing or non-string code is 400 INVALID BODY. Paused by MAINTENANCE. " +
    "With a `trxid` the call is idempotent per account: a retry answers the first final outcome again (redeemed, INVALID_CODE, " +
    "CODE_USED, PLAYER_NOT_FOUND) with the header `Idempotent-Replayed: true`; after SUPPLIER_UNAVAILABLE a retry asks the supplier " +
    "again; a retry while the first is still with the supplier answers 429 DUPLICATE_IN_FLIGHT; the same trxid with another " +
    "player or code answers 409 IDEMPOTENCY_MISMATCH, from another key of your account 403 FORBIDDEN. " +
    "An account that has never been funded is refused with 403 API_NOT_ELIGIBLE and nothing is sent to the supplier (README: Configuration, SUPPLIER_CALLS_REQUIRE_FUNDING).",
  body: RedeemBody,
  aliases: brVerifyAliases,
  response: RedeemResponse,
  responseHeaders: {
    "Idempotent-Replayed": {
      description: "`true` when the answer is that of an earlier redemption with the same `trxid`",
    },
  },
  example: {
    body: { playerId: "5123456789", code: "ABCD-EFGH-1234", trxid: "RDM-20001" },
    responses: {
      redeemed: {
        summary: "Redeemed",
        value: { success: true, redeemed: true, playerId: "5123456789", nickname: "Player-6789", redemptionId: 42 },
      },
    },
  },
  clientSample: (call) => `const { redemptionId } = await ${call};`,
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
    const { body: answer, replayed } = await redeemCode(caller, getCallerSupplier(caller), body);
    return jsonResponse(answer, 200, replayed ? { "idempotent-replayed": "true" } : undefined);
  },
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
