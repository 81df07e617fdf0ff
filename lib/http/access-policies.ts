// The wrapper's view of runtime settings and rate limits, in one place.
import { getRuntimeSettings, type RuntimeSettings } from "../settings/get-runtime-settings";
import { authBlockedFor, checkKeyRateLimit, recordAuthFailure, RateLimitUnavailableError, type RateLimitDecision } from "../ratelimit";
import { ApiError } from "./errors";

export type ApiSettings = RuntimeSettings;

export function readApiSettings(): Promise<ApiSettings> {
  return getRuntimeSettings();
}

function unavailable(): ApiError {
  return new ApiError("RATE_LIMIT_UNAVAILABLE", { headers: { "retry-after": "1" } });
}

/** SPEC section 8 for one key. The limiter never fails open: an unreachable store is a 503. */
export async function applyKeyRateLimit(keyId: number): Promise<RateLimitDecision> {
  try {
    return await checkKeyRateLimit(keyId);
  } catch (error) {
    if (error instanceof RateLimitUnavailableError) throw unavailable();
    throw error;
  }
}

/** Refuses an IP that used up its failed-authentication budget, before any key lookup. */
export function guardFailedAuth(clientIp: string): void {
  const seconds = authBlockedFor(clientIp);
  if (seconds > 0) throw new ApiError("RATE_LIMIT", { headers: { "retry-after": String(seconds) } });
}

/** Counts a failed authentication for the IP. While the store is down, guessing is not allowed either. */
export async function noteFailedAuth(clientIp: string): Promise<void> {
  try {
    await recordAuthFailure(clientIp);
  } catch (error) {
    if (error instanceof RateLimitUnavailableError) throw unavailable();
    throw error;
  }
}
