// The in-process store: the same two algorithms as @upstash/ratelimit's Lua scripts (slidingWindow and
// fixedWindow, single region), computed in memory. Correct for one instance only; with several
// instances each one would admit the full quota, hence the warning.
import type { RateLimitBackend, WindowCounter, WindowResult, WindowSpec } from "./backend";

interface Counts {
  /** Fixed window number (floor(now / windowMs)) that `current` belongs to. */
  window: number;
  current: number;
  previous: number;
}

/** Forget identifiers idle for two windows, at most once per two windows: the map cannot grow without bound. */
function sweeper(counts: Map<string, Counts>, windowMs: number) {
  let lastSweep = 0;
  return (window: number, now: number) => {
    if (now - lastSweep < 2 * windowMs) return;
    lastSweep = now;
    for (const [identifier, entry] of counts) if (entry.window < window - 1) counts.delete(identifier);
  };
}

/** Moves `entry` to `window`: the old current becomes previous if adjacent, else both are empty. */
function roll(entry: Counts | undefined, window: number): Counts {
  if (!entry || entry.window < window - 1) return { window, current: 0, previous: 0 };
  if (entry.window === window - 1) return { window, current: 0, previous: entry.current };
  return entry; // same window (or a clock that stepped back: keep counting in the newer one)
}

export function createMemoryWindow(spec: WindowSpec, clock: () => number = Date.now): WindowCounter {
  const counts = new Map<string, Counts>();
  const sweep = sweeper(counts, spec.windowMs);
  const { tokens, windowMs } = spec;

  const limitNow = (identifier: string): WindowResult => {
    const now = clock();
    const window = Math.floor(now / windowMs);
    sweep(window, now);
    const entry = roll(counts.get(identifier), window);
    counts.set(identifier, entry);
    const reset = (window + 1) * windowMs;

    if (spec.algorithm === "fixed") {
      entry.current += 1;
      return { success: entry.current <= tokens, limit: tokens, remaining: Math.max(0, tokens - entry.current), reset };
    }
    // As in the Lua script: the previous window counts with the weight of the part of it still inside
    // the rolling window, rounded down; a refused call is not counted.
    const weightedPrevious = Math.floor((1 - (now % windowMs) / windowMs) * entry.previous);
    if (weightedPrevious + entry.current >= tokens) return { success: false, limit: tokens, remaining: 0, reset };
    entry.current += 1;
    return { success: true, limit: tokens, remaining: Math.max(0, tokens - (entry.current + weightedPrevious)), reset };
  };

  return { limit: async (identifier) => limitNow(identifier) };
}

export function createMemoryBackend(options: { clock?: () => number } = {}): RateLimitBackend {
  console.warn(
    "[ratelimit] neither UPSTASH_REDIS_REST_URL nor REDIS_URL is set: rate limits are counted in this process only; " +
      "run several instances only with a shared Redis",
  );
  return {
    kind: "memory",
    createWindow: (spec) => createMemoryWindow(spec, options.clock),
    close: async () => undefined,
  };
}
