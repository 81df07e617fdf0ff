// The host-to-host (H2H) supplier protocol, written down once: paths, the request signature, and
// the shapes of the supplier's answers. The client is h2h-supplier.ts; the protocol itself is
// described at the top of that file.
import { createHmac } from "node:crypto";
import { z } from "zod";

export const H2H_PATHS = {
  placeTopup: "/v1/topups",
  checkTopup: (reference: string) => `/v1/topups/${encodeURIComponent(reference)}`,
  verifyPlayer: "/v1/players/verify",
  redeemCode: "/v1/redeem",
} as const;

/**
 * Hex HMAC-SHA256, keyed with the shared secret, over `${timestamp}.${method}.${path}.${body}`:
 * timestamp in unix seconds as sent in X-Timestamp, method upper-case, path exactly as sent on the
 * wire (base URL path prefix included, percent-encoding kept, no query), body exactly as sent ("" for
 * a GET).
 */
export function signH2hRequest(secret: string, timestamp: string, method: string, path: string, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${method.toUpperCase()}.${path}.${body}`).digest("hex");
}

// Answers are validated, never trusted: anything that does not fit is "we do not know". Unknown
// extra fields are allowed so the supplier can add fields without breaking us.

export const h2hTopupAnswer = z.object({
  status: z.enum(["success", "pending", "failed"]),
  /** When present it must be the reference asked about; an answer about another order is garbage. */
  reference: z.string().optional(),
  supplierRef: z.string().min(1).optional(),
  message: z.string().optional(),
  /** On a failure, whose side refused; without it the message decides (h2h-supplier.ts). */
  failure: z.enum(["customer", "supplier"]).optional(),
});
export type H2hTopupAnswer = z.infer<typeof h2hTopupAnswer>;

export const h2hVerifyAnswer = z.discriminatedUnion("found", [
  z.object({ found: z.literal(true), nickname: z.string().min(1) }),
  z.object({ found: z.literal(false) }),
]);

export const h2hRedeemAnswer = z.object({
  status: z.enum(["redeemed", "invalid_code", "code_used", "player_not_found"]),
  nickname: z.string().min(1).optional(),
});
