// The exact rolling log as a custom algorithm for @upstash/ratelimit's Ratelimit class: one Lua
// script over one sorted set per identifier (score = the call's time in ms) checks every window and
// records the call atomically, so one check is one store round trip (one EVALSHA over TCP, one HTTP
// request to Upstash) and concurrent checks from any number of instances cannot both take the last
// slot. lib/ratelimit/memory-rolling-log.ts computes the same thing in process.
import { createHash } from "node:crypto";
import type { RatelimitConfig } from "@upstash/ratelimit";
import type { RecordedCall, RollingLogResult, RollingLogSpec } from "./backend";

type RegionAlgorithm = RatelimitConfig["limiter"];
type RegionContext = Parameters<ReturnType<RegionAlgorithm>["limit"]>[0];
type ScriptRedis = RegionContext["redis"];

/**
 * KEYS[1]  the identifier's log
 * ARGV     now (ms), member (unique per call), keep (entries kept: the largest quota), ttl (ms),
 *          then windowMs and tokens for each window
 * Returns  { allowed (1|0), remaining_1, resetInMs_1, remaining_2, resetInMs_2, ... }
 *
 * A window admits a call at `now` when its tokens-th most recent entry is no later than
 * now - windowMs (so fewer than `tokens` entries lie in (now - windowMs, now]). The call is recorded
 * whether admitted or not. Entries older than the `keep` most recent can never decide anything
 * (every window's question is about its tokens-th most recent), so the set is trimmed to `keep`
 * entries: memory per identifier is bounded whatever a client sends. An entry with a later score
 * than `now` (another instance's clock slightly ahead) counts as inside every window.
 */
const ROLLING_LOG_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local member = ARGV[2]
local keep = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local windows = (#ARGV - 4) / 2

local allowed = 1
for i = 1, windows do
  local window = tonumber(ARGV[3 + 2 * i])
  local tokens = tonumber(ARGV[4 + 2 * i])
  local entry = redis.call("ZREVRANGE", key, tokens - 1, tokens - 1, "WITHSCORES")
  if entry[2] and tonumber(entry[2]) > now - window then allowed = 0 end
end

redis.call("ZADD", key, now, member)
redis.call("ZREMRANGEBYRANK", key, 0, -(keep + 1))
redis.call("PEXPIRE", key, ttl)

local result = { allowed }
for i = 1, windows do
  local window = tonumber(ARGV[3 + 2 * i])
  local tokens = tonumber(ARGV[4 + 2 * i])
  local count = redis.call("ZCOUNT", key, string.format("(%d", now - window), "+inf")
  local k = math.min(count, tokens)
  local entry = redis.call("ZREVRANGE", key, k - 1, k - 1, "WITHSCORES")
  result[#result + 1] = math.max(0, tokens - count)
  result[#result + 1] = tonumber(entry[2]) + window - now
end
return result
`;

const SCRIPT_SHA = createHash("sha1").update(ROLLING_LOG_SCRIPT).digest("hex");

/** As @upstash/ratelimit runs its own scripts: EVALSHA, and the text once when the store lacks it. */
async function runScript(redis: ScriptRedis, keys: string[], args: (string | number)[]): Promise<unknown> {
  try {
    return await redis.evalsha(SCRIPT_SHA, keys, args);
  } catch (error) {
    if (String(error).includes("NOSCRIPT")) return redis.eval(ROLLING_LOG_SCRIPT, keys, args);
    throw error;
  }
}

/** Arguments after now and member, shared by the script call (and documented with the script). */
function scriptArgs(spec: RollingLogSpec): number[] {
  const keep = Math.max(...spec.windows.map((window) => window.tokens));
  // Past the longest window (plus a second for clocks of several instances) the log decides nothing.
  const ttl = Math.max(...spec.windows.map((window) => window.windowMs)) + 1000;
  return [keep, ttl, ...spec.windows.flatMap((window) => [window.windowMs, window.tokens])];
}

/** The Ratelimit response, carrying the per-window states and the recorded call besides its own fields. */
export type RollingLogResponse = Awaited<ReturnType<ReturnType<RegionAlgorithm>["limit"]>> & RollingLogResult;

/**
 * A custom `limiter` for `new Ratelimit({ limiter })`. Ratelimit calls limit(ctx, "<prefix>:<id>");
 * the clock and a per-call member come from here, so a test can drive time without waiting.
 */
export function rollingLogAlgorithm(spec: RollingLogSpec, nextMember: () => string): RegionAlgorithm {
  const args = scriptArgs(spec);
  const first = spec.windows[0];
  if (!first) throw new Error("a rolling log needs at least one window");
  return () => ({
    async limit(ctx, key) {
      const call: RecordedCall = { at: spec.clock(), member: nextMember() };
      const reply = (await runScript(ctx.redis, [key], [call.at, call.member, ...args])) as number[];
      const windows = spec.windows.map((_, i) => ({
        remaining: Number(reply[1 + 2 * i]),
        resetInMs: Number(reply[2 + 2 * i]),
      }));
      const allowed = Number(reply[0]) === 1;
      return {
        success: allowed,
        limit: first.tokens,
        remaining: windows[0]!.remaining, // windows has one state per spec window, and first exists
        reset: call.at + windows[0]!.resetInMs,
        pending: Promise.resolve(),
        allowed,
        windows,
        call,
      } satisfies RollingLogResponse;
    },
    async getRemaining() {
      throw new Error("the rolling log answers only through limit()");
    },
    async resetTokens() {
      throw new Error("the rolling log answers only through limit()");
    },
  });
}

/** Takes one call back out of an identifier's log (ZREM of its member). */
export interface ZremRedis {
  zrem(key: string, ...members: string[]): Promise<unknown>;
}

export async function retractFromLog(redis: ZremRedis, key: string, call: RecordedCall): Promise<void> {
  await redis.zrem(key, call.member);
}
