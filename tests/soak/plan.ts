// The soak's schedule, drawn from its seed alone: every operation (what, for whom, when) and every
// fault (what, when, for how long) is decided before the service starts, so a seed replays exactly
// the same run. pure-rand's xoroshiro128+ is the generator fast-check uses: seeded and portable.
import { createHash } from "node:crypto";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { SERVED_SANDBOX_ENDING } from "../helpers/sandbox-players";

export const SOAK_ACCOUNTS = 6;
/** Packs of the soak's world (tests/soak/world.ts): two top-ups at the h2h suppliers, one gift card. */
export const TOPUP_PACKS = ["SVCSK10", "SVCSK25"] as const;
export const CODE_PACK = "SVCGC5";
/** Live players the h2h suppliers know; any other player id is refused (a cancelled, refunded order). */
export const LIVE_PLAYERS = ["4100001", "4100002", "4100003"];
/** Test-mode player ids ending as the sandbox reads them (docs/api.md, the sandbox supplier). */
const SERVED = SERVED_SANDBOX_ENDING;
const SANDBOX_ENDINGS = [SERVED, SERVED, SERVED, "404", "500", "408", "999"];

export type Mode = "live" | "test";

export type Operation =
  | {
      kind: "place";
      account: number;
      mode: Mode;
      trxid: string;
      pid: string;
      userId?: string;
      metadata?: Record<string, string>;
    }
  /** The same request again, after the original was answered: the same invoice, replayed. */
  | { kind: "duplicate"; of: number }
  /** The original's trxid with another player: 409 IDEMPOTENCY_MISMATCH. */
  | { kind: "changed-duplicate"; of: number }
  | { kind: "lookup"; of: number; by: "publicId" | "trxid" | "id" }
  | { kind: "cancel"; of: number }
  | { kind: "history"; account: number; mode: Mode }
  | { kind: "balance"; account: number; mode: Mode }
  | { kind: "events"; account: number; mode: Mode }
  | { kind: "verify"; account: number; userId: string }
  | { kind: "redeem"; account: number; trxid: string; code: string }
  /** An admin's credit or debit of a live wallet through the bot, by webhook. */
  | { kind: "bot-adjust"; account: number; direction: "credit" | "debit"; cents: number }
  /** More calls at once on one key than its rolling second admits. */
  | { kind: "burst"; account: number; calls: number };

export interface PlannedOperation {
  index: number;
  /** Milliseconds after the workload starts. */
  at: number;
  operation: Operation;
}

type FaultKind =
  | "postgres-crash"
  | "postgres-fast-restart"
  | "redis-kill"
  | "worker-kill"
  | "web-kill"
  | "supplier-outage"
  | "supplier-slow"
  | "supplier-lost-answers"
  | "receiver-down"
  | "pool-full";

export interface PlannedFault {
  kind: FaultKind;
  at: number;
  durationMs: number;
  /** Which of two (web process, worker, supplier, receiver) it strikes. */
  target: number;
}

export interface SoakPlan {
  seed: number;
  minutes: number;
  operations: PlannedOperation[];
  faults: PlannedFault[];
  /** When the last fault has ended; orders must be terminal within the bound after it. */
  quietFrom: number;
  /** A digest of the whole schedule: the same seed prints the same one. */
  fingerprint: string;
}

const FAULT_KINDS: FaultKind[] = [
  "postgres-crash",
  "postgres-fast-restart",
  "redis-kill",
  "worker-kill",
  "web-kill",
  "supplier-outage",
  "supplier-slow",
  "supplier-lost-answers",
  "receiver-down",
  "pool-full",
];

/** Operations per second, over all clients: well inside what one small machine serves. */
const OPERATIONS_PER_SECOND = 5;
/** The last stretch of a run is fault-free, so every order can settle and be checked. */
const QUIET_TAIL_MS = 30_000;

export function planSoak(seed: number, minutes: number): SoakPlan {
  const rng = xoroshiro128plus(seed);
  const int = (from: number, to: number) => uniformInt(rng, from, to);
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const durationMs = Math.round(minutes * 60_000);
  const workloadEnd = Math.max(durationMs - QUIET_TAIL_MS, durationMs / 2);

  const operations: PlannedOperation[] = [];
  const placed: number[] = [];
  const count = Math.round((workloadEnd / 1000) * OPERATIONS_PER_SECOND);
  for (let index = 0; index < count; index++) {
    const at = Math.round((index * workloadEnd) / count) + int(0, 150);
    const account = int(0, SOAK_ACCOUNTS - 1);
    const mode: Mode = int(0, 3) === 0 ? "test" : "live";
    const roll = int(0, 99);
    let operation: Operation;
    if (placed.length < 5 || roll < 45) {
      const trxid = `soak-${seed}-${index}`;
      const giftCard = int(0, 5) === 0;
      const userId = giftCard
        ? undefined
        : mode === "live"
          ? int(0, 9) === 0
            ? "4199999"
            : pick(LIVE_PLAYERS)
          : `5${int(1000, 9999)}${pick(SANDBOX_ENDINGS)}`;
      const metadata = int(0, 3) === 0 ? { cart: `c-${index}`, customer: `u${int(1, 99)}` } : undefined;
      operation = {
        kind: "place",
        account,
        mode,
        trxid,
        pid: giftCard ? CODE_PACK : pick(TOPUP_PACKS),
        userId,
        metadata,
      };
      placed.push(index);
    } else if (roll < 52) operation = { kind: "duplicate", of: pick(placed) };
    else if (roll < 55) operation = { kind: "changed-duplicate", of: pick(placed) };
    else if (roll < 67)
      operation = { kind: "lookup", of: pick(placed), by: pick(["publicId", "trxid", "id"] as const) };
    else if (roll < 71) operation = { kind: "cancel", of: pick(placed.slice(-4)) };
    else if (roll < 75) operation = { kind: "history", account, mode };
    else if (roll < 79) operation = { kind: "balance", account, mode };
    else if (roll < 84) operation = { kind: "events", account, mode };
    else if (roll < 88) operation = { kind: "verify", account, userId: int(0, 3) ? pick(LIVE_PLAYERS) : "4199999" };
    else if (roll < 91)
      operation = { kind: "redeem", account, trxid: `soak-r-${seed}-${index}`, code: `SOAK-${int(1, 40)}` };
    else if (roll < 96)
      operation = { kind: "bot-adjust", account, direction: int(0, 2) ? "credit" : "debit", cents: int(1, 20) * 25 };
    else operation = { kind: "burst", account, calls: int(14, 24) };
    operations.push({ index, at, operation });
  }
  operations.sort((a, b) => a.at - b.at || a.index - b.index);

  // Faults one after another with a pause between, never overlapping, all ended before the tail;
  // every kind once, in the seed's order, before any kind comes again.
  const faults: PlannedFault[] = [];
  let round: FaultKind[] = [];
  for (let at = int(5_000, 10_000); ;) {
    if (round.length === 0) {
      round = [...FAULT_KINDS];
      for (let i = round.length - 1; i > 0; i--) {
        const j = int(0, i);
        [round[i], round[j]] = [round[j]!, round[i]!];
      }
    }
    const kind = round.pop()!;
    const length =
      kind === "postgres-fast-restart"
        ? int(100, 500)
        : kind === "web-kill" || kind === "worker-kill"
          ? int(1_000, 5_000)
          : int(2_000, 9_000);
    if (at + length > workloadEnd) break;
    faults.push({ kind, at, durationMs: length, target: int(0, 1) });
    at += length + int(5_000, 10_000);
  }
  const quietFrom = faults.length ? Math.max(...faults.map((f) => f.at + f.durationMs)) : 0;
  const fingerprint = createHash("sha256").update(JSON.stringify({ operations, faults })).digest("hex").slice(0, 16);
  return { seed, minutes, operations, faults, quietFrom, fingerprint };
}
