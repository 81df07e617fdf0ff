// Everything the bench can be told, read once from the environment. The defaults keep one
// `npm run bench` under about eight minutes on a 2-core machine.
import crypto from "node:crypto";

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export interface BenchConfig {
  /**
   * Measured slices per endpoint and server, and their length. The servers take turns slice by
   * slice (A B C, B C A, ...), so a neighbour's burst of work on a shared machine lands on all of
   * them alike; the report shows the median slice.
   */
  slices: number;
  sliceSeconds: number;
  /** Unmeasured seconds of the same load before the first slice (JIT, pools, caches). */
  warmupSeconds: number;
  connections: number;
  /** Accounts that own the keys; orders spread over them, so wallet rows are rarely contended. */
  accounts: number;
  /** Keys, round-robin per request, so the per-key limits (10/s, 80/min) never bind. */
  keys: number;
  /** Orders placed before the measured runs, per account: GET /orders/:id and /history read them. */
  ordersPerAccount: number;
  /** Sequential requests per endpoint for the one-connection latency probe. */
  probeRequests: number;
  /** Seconds of fixed-rate placement for the worker's placement-to-completion figures. */
  workerSteadySeconds: number;
  /** Pool size of the service, the floor and (by graphile's own default) nothing else. */
  pgPoolMax: number;
  /** Write node --cpu-prof profiles of the service and of the webhook rounds' workers (bench/profiles/) to look into a missed target. */
  cpuProfile: boolean;
  /** BENCH_WORKER=0 skips the worker phase (e.g. to profile one endpoint alone). */
  workerPhase: boolean;
  /**
   * The webhook comparison (webhook-phase.ts): BENCH_WEBHOOKS=0 skips it; BENCH_WEBHOOK_CYCLES
   * cycles of three rounds (no endpoints; one endpoint per account, delivering while fulfilling;
   * the same, delivered after the drain), BENCH_WEBHOOK_ORDERS orders placed and fulfilled per round.
   */
  webhooks: { enabled: boolean; cycles: number; ordersPerRound: number };
  /**
   * The end-to-end rate (end-to-end-phase.ts): BENCH_END_TO_END=0 skips it; fixed placement rates
   * from BENCH_E2E_START_RATE, each BENCH_E2E_STEP_PCT percent above the last, held
   * BENCH_E2E_HOLD_S each, at most BENCH_E2E_STEPS of them.
   */
  endToEnd: { enabled: boolean; startRate: number; stepPercent: number; holdSeconds: number; maxSteps: number };
  /** Names of endpoints to run (default all), e.g. BENCH_ENDPOINTS=balance,place; set and empty: none. */
  endpoints?: string[];
  /** Secrets given in the environment, as production takes them: fresh each run, never the development defaults. */
  secrets: { APP_SECRET: string; CODES_ENCRYPTION_KEY: string; NEXTAUTH_SECRET: string };
  /** Rate-limit keys in Redis get this prefix, so the bench shares no window with anyone else. */
  rateLimitPrefix: string;
}

export function readBenchConfig(): BenchConfig {
  const secret = () => crypto.randomBytes(24).toString("base64url");
  const endpoints = process.env.BENCH_ENDPOINTS?.split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  return {
    slices: positiveInt("BENCH_SLICES", 10),
    sliceSeconds: positiveInt("BENCH_SLICE_S", 2),
    warmupSeconds: positiveInt("BENCH_WARMUP_S", 1),
    connections: positiveInt("BENCH_CONNECTIONS", 50),
    accounts: positiveInt("BENCH_ACCOUNTS", 200),
    keys: positiveInt("BENCH_KEYS", 12_000),
    ordersPerAccount: positiveInt("BENCH_ORDERS_PER_ACCOUNT", 30),
    probeRequests: positiveInt("BENCH_PROBE_REQUESTS", 300),
    workerSteadySeconds: positiveInt("BENCH_WORKER_STEADY_S", 10),
    pgPoolMax: positiveInt("PG_POOL_MAX", 10),
    cpuProfile: process.env.BENCH_CPU_PROF === "1",
    workerPhase: process.env.BENCH_WORKER !== "0",
    webhooks: {
      enabled: process.env.BENCH_WEBHOOKS !== "0",
      cycles: positiveInt("BENCH_WEBHOOK_CYCLES", 2),
      ordersPerRound: positiveInt("BENCH_WEBHOOK_ORDERS", 2000),
    },
    endToEnd: {
      enabled: process.env.BENCH_END_TO_END !== "0",
      startRate: positiveInt("BENCH_E2E_START_RATE", 60),
      stepPercent: positiveInt("BENCH_E2E_STEP_PCT", 25),
      holdSeconds: positiveInt("BENCH_E2E_HOLD_S", 60),
      maxSteps: positiveInt("BENCH_E2E_STEPS", 12),
    },
    // Unset: every endpoint. Set to nothing (BENCH_ENDPOINTS=): none, for a run of other phases alone.
    endpoints: endpoints?.length || process.env.BENCH_ENDPOINTS === "" ? endpoints : undefined,
    secrets: { APP_SECRET: secret(), CODES_ENCRYPTION_KEY: secret(), NEXTAUTH_SECRET: secret() },
    rateLimitPrefix: `bench-${Date.now().toString(36)}`,
  };
}
