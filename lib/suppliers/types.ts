// The one interface every supplier speaks. Top-ups go to a supplier; verify and redeem ask one.
// Implementations never throw for supplier-side trouble: a timeout, a 5xx, garbage or a lost
// answer is an outcome ("unknown" / "unavailable"), so the caller decides, and never guesses.

export interface TopupRequest {
  /** Our public order id. Suppliers deduplicate on it, so a resubmission cannot deliver twice. */
  reference: string;
  sku: string;
  game: string;
  userId?: string;
  zoneId?: string;
  serverId?: string;
}

export type TopupOutcome =
  /** Delivered. */
  | { status: "success"; supplierRef?: string; message?: string }
  /**
   * Definitively not delivered. `failure` says whose side refused: the customer's (player not found,
   * a bad zone or server: another supplier would say the same, so the order is cancelled and
   * refunded) or the supplier's own (maintenance, its stock or balance: the order moves on to the
   * pack's next supplier).
   */
  | { status: "failed"; reason: string; failure: FailureSide; supplierRef?: string }
  /** Accepted but not settled yet: ask again later with checkTopup. */
  | { status: "pending"; supplierRef?: string }
  /** We do not know (no answer, timeout, 5xx, garbage): ask with checkTopup, never guess. */
  | { status: "unknown"; reason: string };

type FailureSide = "customer" | "supplier";

/** checkTopup adds "not_found": the supplier never received this reference (safe to place it). */
export type TopupStatus = TopupOutcome | { status: "not_found" };

export interface VerifyRequest {
  game: "br" | "moba";
  playerId: string;
  zoneId?: string;
}

export type VerifyOutcome =
  { status: "found"; nickname: string } | { status: "not_found" } | { status: "unavailable"; reason: string };

export interface RedeemRequest {
  /** Our reference for this redemption (unique per call), for the supplier's deduplication. */
  reference: string;
  playerId: string;
  code: string;
}

export type RedeemOutcome =
  | { status: "redeemed"; nickname?: string }
  | { status: "invalid_code" }
  | { status: "code_used" }
  | { status: "player_not_found" }
  | { status: "unavailable"; reason: string };

export interface Supplier {
  readonly name: string;
  placeTopup(request: TopupRequest): Promise<TopupOutcome>;
  checkTopup(reference: string): Promise<TopupStatus>;
  verifyPlayer(request: VerifyRequest): Promise<VerifyOutcome>;
  redeemCode(request: RedeemRequest): Promise<RedeemOutcome>;
}
