// The in-process rolling log: the same decision as the Lua script (lib/ratelimit/rolling-log-script.ts),
// over one sorted array of call times per identifier. Memory is bounded: at most the largest quota
// of entries per identifier (older ones can never decide anything), and an identifier whose newest
// call has left the longest window is forgotten by a sweep that runs at most once per window.
import type {
  RecordedCall,
  RollingLog,
  RollingLogResult,
  RollingLogSpec,
  RollingWindow,
  RollingWindowState,
} from "./backend";

/**
 * Checks every window and records a call at `at` in `log` (ascending times, mutated), keeping the
 * `keep` most recent entries. Pure apart from `log`: the unit tests drive it directly.
 */
export function recordCall(
  log: number[],
  at: number,
  windows: RollingWindow[],
  keep: number,
): { allowed: boolean; windows: RollingWindowState[] } {
  // The tokens-th most recent entry decides: fewer than tokens calls in (at - windowMs, at] iff it is
  // absent or no later than at - windowMs.
  const allowed = windows.every(({ tokens, windowMs }) => {
    const entry = log[log.length - tokens];
    return entry === undefined || entry <= at - windowMs;
  });

  let position = log.length;
  while (position > 0 && log[position - 1]! > at) position--; // a clock that stepped back: keep the order
  log.splice(position, 0, at);
  if (log.length > keep) log.splice(0, log.length - keep);

  const states = windows.map(({ tokens, windowMs }) => {
    let count = 0;
    while (count < log.length && log[log.length - 1 - count]! > at - windowMs) count++;
    const k = Math.min(count, tokens);
    // k >= 1: the call just logged is within every window.
    return { remaining: Math.max(0, tokens - count), resetInMs: log[log.length - k]! + windowMs - at };
  });
  return { allowed, windows: states };
}

export function createMemoryRollingLog(
  spec: RollingLogSpec,
  nextMember: () => string,
): RollingLog & { size(): number } {
  const logs = new Map<string, number[]>();
  const keep = Math.max(...spec.windows.map((window) => window.tokens));
  const longest = Math.max(...spec.windows.map((window) => window.windowMs));
  let lastSweep = Number.NEGATIVE_INFINITY;

  function sweep(now: number) {
    if (now - lastSweep < longest) return;
    lastSweep = now;
    for (const [identifier, log] of logs) if ((log.at(-1) ?? -Infinity) <= now - longest) logs.delete(identifier);
  }

  return {
    async record(identifier): Promise<RollingLogResult> {
      const call: RecordedCall = { at: spec.clock(), member: nextMember() };
      sweep(call.at);
      let log = logs.get(identifier);
      if (!log) logs.set(identifier, (log = []));
      return { ...recordCall(log, call.at, spec.windows, keep), call };
    },

    async retract(identifier, call) {
      const log = logs.get(identifier);
      if (!log) return;
      const index = log.lastIndexOf(call.at); // equal times are interchangeable
      if (index >= 0) log.splice(index, 1);
      if (log.length === 0) logs.delete(identifier);
    },

    size: () => logs.size,
  };
}
