// The in-process fixed window (failed authentications per client network): the arithmetic of
// @upstash/ratelimit's fixedWindow script, in memory. Bounded: identifiers from an older window are
// swept once per window, and at most `maxIdentifiers` are held; past that the longest-held ones are
// dropped first (a client that can spread its attempts over that many networks is not slowed by a
// per-network budget anyway, while the process's memory stays flat).
import type { FixedWindow, FixedWindowResult, FixedWindowSpec } from "./backend";

const DEFAULT_MAX_IDENTIFIERS = 100_000;

interface Count {
  window: number;
  count: number;
}

export function createMemoryFixedWindow(
  spec: FixedWindowSpec,
  maxIdentifiers = DEFAULT_MAX_IDENTIFIERS,
): FixedWindow & { size(): number } {
  const counts = new Map<string, Count>();
  const { tokens, windowMs } = spec;
  let sweptWindow = Number.NEGATIVE_INFINITY;

  function makeRoom(window: number) {
    if (window > sweptWindow) {
      sweptWindow = window;
      for (const [identifier, entry] of counts) if (entry.window < window) counts.delete(identifier);
    }
    // Map iteration is insertion order: the first keys are the longest held.
    for (const identifier of counts.keys()) {
      if (counts.size < maxIdentifiers) break;
      counts.delete(identifier);
    }
  }

  const limitNow = (identifier: string): FixedWindowResult => {
    const now = spec.clock();
    const window = Math.floor(now / windowMs);
    let entry = counts.get(identifier);
    if (!entry || entry.window < window) {
      if (entry) counts.delete(identifier);
      else makeRoom(window);
      entry = { window, count: 0 };
      counts.set(identifier, entry);
    }
    entry.count += 1;
    return {
      success: entry.count <= tokens,
      limit: tokens,
      remaining: Math.max(0, tokens - entry.count),
      reset: (entry.window + 1) * windowMs,
    };
  };

  return { limit: async (identifier) => limitNow(identifier), size: () => counts.size };
}
