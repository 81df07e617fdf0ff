// The sandbox supplier's test players and test codes, as data, so the README, the API docs and the
// tests list the same rules the sandbox applies (like a payment provider's test card numbers).
// The rules are also written out, for reading, at the top of sandbox-supplier.ts.

export type SandboxBehaviourName =
  "success" | "player_not_found" | "supplier_rejects" | "slow" | "first_answer_lost" | "never_settles";

export interface SandboxBehaviour {
  /** The player id ends with these characters (anything may come before them); null: any other id. */
  suffix: string | null;
  behaviour: SandboxBehaviourName;
  description: string;
  /** What placeTopup / checkTopup answer for a top-up to this player. */
  topup: string;
  /** What verifyPlayer answers for this player id. */
  verify: string;
  /** What redeemCode answers for this player id (before the code is looked at). */
  redeem: string;
}

export const sandboxBehaviours: readonly SandboxBehaviour[] = [
  {
    suffix: "404",
    behaviour: "player_not_found",
    description: "The player does not exist.",
    topup: 'failed, reason "PLAYER NOT FOUND"',
    verify: "not_found",
    redeem: "player_not_found",
  },
  {
    suffix: "500",
    behaviour: "supplier_rejects",
    description: "The supplier refuses the top-up and is unavailable for checks.",
    topup: 'failed, reason "SUPPLIER REJECTED"',
    verify: "unavailable",
    redeem: "unavailable",
  },
  {
    suffix: "408",
    behaviour: "slow",
    description: "Every answer about this player comes after SANDBOX_SLOW_MS (default 3000 ms), then succeeds.",
    topup: "success, late",
    verify: "found, late",
    redeem: "by the code, late",
  },
  {
    suffix: "999",
    behaviour: "first_answer_lost",
    description:
      "The supplier delivers but its answer to the first placement of a reference is lost. A later checkTopup " +
      "in the same process answers success; placing the same reference again answers success (already " +
      "delivered). After a restart the sandbox has forgotten the reference: checkTopup answers not_found and " +
      "the next placement is again a first one (unknown, then success on check), so it never loops.",
    topup: "placeTopup: unknown the first time a reference is seen in this process, success after; checkTopup: success",
    verify: "found",
    redeem: "by the code",
  },
  {
    suffix: "777",
    behaviour: "never_settles",
    description: "The top-up is accepted and never settles, so the worker's deadline and admin flag can be tested.",
    topup: "pending, forever (placeTopup and checkTopup)",
    verify: "found",
    redeem: "by the code",
  },
  {
    suffix: null,
    behaviour: "success",
    description: 'Any other player id: found, with the nickname "Player-" + the last 4 characters of the id.',
    topup: "success",
    verify: "found",
    redeem: "by the code",
  },
];

export type SandboxCodeOutcome = "code_used" | "invalid_code" | "redeemed";

export interface SandboxCodeRule {
  /** The code starts with these letters (case-insensitive); null: any other code. */
  prefix: string | null;
  outcome: SandboxCodeOutcome;
  description: string;
}

/** Applied by redeemCode once the player is known to be fine. Codes are never used up in the sandbox. */
export const sandboxCodeRules: readonly SandboxCodeRule[] = [
  { prefix: "USED", outcome: "code_used", description: "The code was already redeemed." },
  { prefix: "BAD", outcome: "invalid_code", description: "The code does not exist." },
  { prefix: null, outcome: "redeemed", description: "Any other code is redeemed, with the player's nickname." },
];

const fallbackBehaviour = sandboxBehaviours.find((entry) => entry.suffix === null)!;

export function sandboxBehaviourFor(playerId: string | undefined): SandboxBehaviour {
  const id = playerId ?? "";
  return sandboxBehaviours.find((entry) => entry.suffix !== null && id.endsWith(entry.suffix)) ?? fallbackBehaviour;
}

export function sandboxCodeOutcomeFor(code: string): SandboxCodeOutcome {
  const normalised = code.trim().toUpperCase();
  const rule = sandboxCodeRules.find((entry) => entry.prefix === null || normalised.startsWith(entry.prefix));
  return rule!.outcome;
}

export function sandboxNickname(playerId: string | undefined): string {
  return `Player-${(playerId ?? "").slice(-4)}`;
}
