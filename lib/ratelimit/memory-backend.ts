// The in-process store: the rolling log and the fixed window computed in memory, with the same
// answers as the Redis scripts. Correct for one instance only; with several instances each one would
// admit the full quota, hence the warning.
import type { RateLimitBackend } from "./backend";
import { createMemoryFixedWindow } from "./memory-fixed-window";
import { createMemoryRollingLog } from "./memory-rolling-log";
import { logger } from "../observability/logger";

export function createMemoryBackend(options: { maxIdentifiers?: number } = {}): RateLimitBackend {
  logger("ratelimit").warn(
    "neither UPSTASH_REDIS_REST_URL nor REDIS_URL is set: rate limits are counted in this process only; " +
      "run several instances only with a shared Redis",
  );
  let members = 0;
  return {
    kind: "memory",
    createRollingLog: (spec) => createMemoryRollingLog(spec, () => String(++members)),
    createFixedWindow: (spec) => createMemoryFixedWindow(spec, options.maxIdentifiers),
    close: async () => undefined,
  };
}
