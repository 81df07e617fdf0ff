// A redeem attempt as POST /rdmbr's raw SQL reads it: Prisma's Redemption, the fields the
// idempotency checks and the answer use.
import type { Redemption } from "../generated/prisma/client";

export type RedemptionRecord = Pick<
  Redemption,
  "id" | "apiKeyId" | "playerId" | "codeFingerprint" | "outcome" | "nickname"
>;
