// When each attempt of a delivery happens, counted from the previous failed attempt: at once,
// then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h and 24 h (about two days in all). Each wait is
// spread by up to 10% either way so that endpoints that failed together do not retry together.
export const RETRY_SCHEDULE_MS: readonly number[] = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 86_400_000,
];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
const JITTER = 0.1;
/** A Retry-After longer than this is capped: the schedule's longest wait. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * The wait before attempt `nextAttempt` (2..MAX_ATTEMPTS), or undefined when the schedule is over.
 * A 429 or 503 with Retry-After waits at least that long.
 */
export function delayBeforeAttempt(
  nextAttempt: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number | undefined {
  const base = RETRY_SCHEDULE_MS[nextAttempt - 1];
  if (nextAttempt > MAX_ATTEMPTS || base === undefined) return undefined;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  if (retryAfterSeconds === undefined) return jittered;
  return Math.max(jittered, Math.min(retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS));
}

/** The longest an endpoint is paused after failures in a row (a Retry-After may ask for more). */
const MAX_ENDPOINT_PAUSE_MS = 600_000;
/** The longest Retry-After an endpoint's pause honours. */
const MAX_ENDPOINT_RETRY_AFTER_MS = 3_600_000;

/**
 * How long an endpoint takes no delivery after its `failuresInARow`-th failed attempt: 1 s, doubling
 * with each failure up to 10 minutes, or what its Retry-After asked for if longer (at most an hour).
 * Spread like the attempts: a receiver that is down on a regular beat (every 8 s, say) would
 * otherwise meet every doubled pause in the same phase and never be tried while it is up.
 */
export function endpointPauseMs(
  failuresInARow: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number {
  const doubled = Math.min(1000 * 2 ** Math.max(0, failuresInARow - 1), MAX_ENDPOINT_PAUSE_MS);
  const backoff = Math.round(doubled * (1 - JITTER + 2 * JITTER * random()));
  if (retryAfterSeconds === undefined) return backoff;
  return Math.max(backoff, Math.min(retryAfterSeconds * 1000, MAX_ENDPOINT_RETRY_AFTER_MS));
}
