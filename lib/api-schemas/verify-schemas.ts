// POST /brvvfy, /mobavfy, /rdmbr: request fields and answers as the OpenAPI document describes them.
import { z } from "zod";
import { failsAs, identifier } from "./fields";
import type { ErrorKey } from "../http/errors";

const REDEEM_CODE_PATTERN = /^[A-Za-z0-9]{2,10}(-[A-Za-z0-9]{2,10}){1,7}$/;

export const BrVerifyBody = z.object({
  playerId: identifier("Battle-royale player id (aliases playerID, userId, userID)"),
  trxid: identifier(
    "Your reference for this check, recorded only: a check is not idempotent (it changes nothing)",
  ).optional(),
});
export const brVerifyAliases = { playerId: ["playerID", "userId", "userID"] };

export const MobaVerifyBody = z.object({
  userId: identifier("User id (alias userID)"),
  zoneId: identifier("Numeric zone id")
    .pipe(z.string().regex(/^\d{1,10}$/, "zoneId must be numeric"))
    // What the parse accepts: up to 10 digits, as a string (surrounding blanks are trimmed) or a number.
    .meta({
      anyOf: [
        { type: "string", pattern: "^\\s*\\d{1,10}\\s*$" },
        { type: "integer", minimum: 0, maximum: 9_999_999_999 },
      ],
      description: "Numeric zone id: up to 10 digits",
    } as never),
  trxid: identifier(
    "Your reference for this check, recorded only: a check is not idempotent (it changes nothing)",
  ).optional(),
});
export const mobaVerifyAliases = { userId: ["userID"] };

export const RedeemBody = z.object({
  playerId: identifier("Battle-royale player id (aliases playerID, userId, userID)"),
  // A string of the wrong form is a bad code, not a bad body: 400 INVALID_CODE, as the supplier's refusal.
  code: z
    .string()
    .trim()
    .refine(
      (code) => REDEEM_CODE_PATTERN.test(code),
      failsAs(
        "INVALID_CODE",
        "code must be groups of 2-10 letters or digits separated by hyphens, e.g. ABCD-EFGH-1234",
      ),
    )
    .meta({
      description: "Groups of 2-10 letters or digits separated by hyphens; any other string is 400 INVALID_CODE",
      example: "ABCD-EFGH-1234",
      pattern: REDEEM_CODE_PATTERN.source,
    }),
  trxid: identifier(
    "Your reference for this redemption: makes it idempotent per account (a retry answers the first final outcome)",
  ).optional(),
});

const VerifyResponse = z
  .object({
    success: z.literal(true),
    valid: z.literal(true),
    game: z.enum(["br", "moba"]),
    playerId: z.string(),
    zoneId: z.string().optional(),
    nickname: z.string(),
  })
  .meta({ id: "Verification" });

export const RedeemResponse = z
  .object({
    success: z.literal(true),
    redeemed: z.literal(true),
    playerId: z.string(),
    nickname: z.string().optional(),
    redemptionId: z.number().int().meta({
      description:
        "Our record of this redemption, for support: a number below 2^40 that is stable for the redemption and says nothing about other accounts' calls",
    }),
  })
  .meta({ id: "Redemption" });

/** What the two player checks (POST /brvvfy, POST /mobavfy) share: their tag, answer and errors. */
export const playerCheckRoute = {
  tag: "Verify and redeem",
  supplierCall: true as const,
  response: VerifyResponse,
  errors: ["PLAYER_NOT_FOUND", "SUPPLIER_UNAVAILABLE"] satisfies ErrorKey[] as ErrorKey[],
};
