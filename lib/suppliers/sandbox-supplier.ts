// The default supplier: in-process, no network, deterministic by the player id's ending (docs/api.md:
// The sandbox supplier; the rules as data in sandbox-behaviours.ts). Like a real supplier it deduplicates
// top-ups by reference in a bounded Map, so "999" (answer lost) costs one lost answer per process
// and a restart cannot make it loop. Never throws: every call answers an outcome of types.ts.
import { setTimeout as sleep } from "node:timers/promises";
import {
  sandboxBehaviourFor,
  sandboxCodeOutcomeFor,
  sandboxNickname,
  type SandboxBehaviourName,
} from "./sandbox-behaviours";
import type {
  RedeemOutcome,
  RedeemRequest,
  Supplier,
  TopupOutcome,
  TopupRequest,
  TopupStatus,
  VerifyOutcome,
  VerifyRequest,
} from "./types";

export { sandboxBehaviours, sandboxCodeRules, sandboxBehaviourFor } from "./sandbox-behaviours";

export interface SandboxOptions {
  /** The supplier account's name (several sandbox accounts may be configured). */
  name?: string;
  /** Added to every call (SANDBOX_LATENCY_MS, or the account's own). */
  latencyMs?: number;
  /** The whole supplier refuses every top-up, for its own reasons (a supplier that is down). */
  down?: boolean;
  /** SKUs it refuses for its own reasons, and SKUs it has no stock of: supplier-side refusals. */
  refuseSkus?: string[];
  outOfStockSkus?: string[];
  /** Extra wait for players whose id ends with 408 (SANDBOX_SLOW_MS). */
  slowMs?: number;
  /** How many references placeTopup remembers; the oldest is forgotten first. */
  maxRememberedTopups?: number;
}

export const SANDBOX_DEFAULTS = { latencyMs: 0, slowMs: 3000, maxRememberedTopups: 10_000 } as const;

interface RememberedTopup {
  userId: string;
  /** What the supplier knows about this reference: what checkTopup and any re-placement answer. */
  state: TopupOutcome;
}

export function createSandboxSupplier(options: SandboxOptions = {}): Supplier {
  const latencyMs = options.latencyMs ?? SANDBOX_DEFAULTS.latencyMs;
  const slowMs = options.slowMs ?? SANDBOX_DEFAULTS.slowMs;
  const maxRemembered = Math.max(1, options.maxRememberedTopups ?? SANDBOX_DEFAULTS.maxRememberedTopups);
  const remembered = new Map<string, RememberedTopup>();

  async function answerDelay(playerId: string | undefined): Promise<void> {
    const delay = latencyMs + (sandboxBehaviourFor(playerId).behaviour === "slow" ? slowMs : 0);
    if (delay > 0) await sleep(delay);
  }

  function remember(reference: string, entry: RememberedTopup): void {
    if (remembered.size >= maxRemembered) {
      const oldest = remembered.keys().next().value;
      if (oldest !== undefined) remembered.delete(oldest);
    }
    remembered.set(reference, entry);
  }

  // The account's own refusals, before any player rule: they are about the supplier, not the player.
  function accountRefusal(sku: string): TopupOutcome | undefined {
    if (options.down) return { status: "failed", reason: "SUPPLIER DOWN", failure: "supplier" };
    if (options.refuseSkus?.includes(sku)) return { status: "failed", reason: "SKU REFUSED", failure: "supplier" };
    if (options.outOfStockSkus?.includes(sku)) return { status: "failed", reason: "OUT OF STOCK", failure: "supplier" };
    return undefined;
  }

  return {
    name: options.name ?? "sandbox",

    async placeTopup(request: TopupRequest): Promise<TopupOutcome> {
      const userId = request.userId ?? "";
      await answerDelay(userId);
      const refused = accountRefusal(request.sku);
      if (refused) return refused;
      // Read after the wait and write without another await in between, so two concurrent
      // placements of one reference cannot both deliver.
      const known = remembered.get(request.reference);
      if (known) return known.state;

      const behaviour = sandboxBehaviourFor(userId).behaviour;
      const state = settledTopupState(behaviour, request.reference);
      remember(request.reference, { userId, state });
      if (behaviour === "first_answer_lost") {
        return { status: "unknown", reason: "sandbox: the supplier delivered but its answer was lost" };
      }
      return state;
    },

    async checkTopup(reference: string): Promise<TopupStatus> {
      await answerDelay(remembered.get(reference)?.userId);
      return remembered.get(reference)?.state ?? { status: "not_found" };
    },

    async verifyPlayer(request: VerifyRequest): Promise<VerifyOutcome> {
      await answerDelay(request.playerId);
      switch (sandboxBehaviourFor(request.playerId).behaviour) {
        case "player_not_found":
          return { status: "not_found" };
        case "supplier_rejects":
          return { status: "unavailable", reason: "sandbox: supplier unavailable" };
        default:
          return { status: "found", nickname: sandboxNickname(request.playerId) };
      }
    },

    async redeemCode(request: RedeemRequest): Promise<RedeemOutcome> {
      await answerDelay(request.playerId);
      switch (sandboxBehaviourFor(request.playerId).behaviour) {
        case "player_not_found":
          return { status: "player_not_found" };
        case "supplier_rejects":
          return { status: "unavailable", reason: "sandbox: supplier unavailable" };
      }
      const outcome = sandboxCodeOutcomeFor(request.code ?? "");
      if (outcome === "redeemed") return { status: "redeemed", nickname: sandboxNickname(request.playerId) };
      return { status: outcome };
    },
  };
}

function settledTopupState(behaviour: SandboxBehaviourName, reference: string): TopupOutcome {
  const supplierRef = `SANDBOX-${reference}`;
  switch (behaviour) {
    case "player_not_found":
      return { status: "failed", reason: "PLAYER NOT FOUND", failure: "customer", supplierRef };
    case "supplier_rejects":
      return { status: "failed", reason: "SUPPLIER REJECTED", failure: "supplier", supplierRef };
    case "never_settles":
      return { status: "pending", supplierRef };
    case "success":
    case "slow":
    case "first_answer_lost":
      return { status: "success", supplierRef };
  }
}
