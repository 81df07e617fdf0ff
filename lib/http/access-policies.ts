// The wrapper's view of runtime settings, API-key authentication and rate limits, in one place.
import { getRuntimeSettings, type RuntimeSettings } from "../settings/sql/get-runtime-settings";
import { authenticateApiKey, extractApiKey, type ApiCaller } from "../auth/authenticate-api-key";
import { isWellFormedApiKey } from "../auth/api-key-format";
import {
  authBlockedFor,
  recordAuthFailure,
  RateLimitUnavailableError,
  startKeyRateLimit,
  type RateLimitDecision,
} from "../ratelimit";
import { keyLimitIdentifier } from "../ratelimit/key-limit-identifier";
import { ApiError } from "./errors";

export type ApiSettings = RuntimeSettings;

export function readApiSettings(): Promise<ApiSettings> {
  return getRuntimeSettings();
}

function unavailable(): ApiError {
  return new ApiError("RATE_LIMIT_UNAVAILABLE", { headers: { "retry-after": "1" } });
}

async function mapUnavailable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof RateLimitUnavailableError) throw unavailable();
    throw error;
  }
}

interface AuthenticatedCall {
  caller: ApiCaller;
  /**
   * The per-key limits (docs/api.md: Rate limits) for this call, already counted or on the
   * way. The limiter never fails open: an unreachable store is a 503 RATE_LIMIT_UNAVAILABLE.
   */
  limit: Promise<RateLimitDecision>;
}

/**
 * Looks the key up and starts its rate-limit check at the same time (the check counts under a
 * digest of the presented key, so it needs no key id): one database and one store round trip,
 * overlapped. A key that turns out unknown has its call taken back out of the log, so guessed keys
 * leave no counts behind.
 *
 * Failed authentications are counted per client network (IPv4 address, IPv6 /64). Once a network
 * used up its budget, its further bad keys are refused with 429 RATE_LIMIT; a valid key from it still
 * passes, since the lookup happens first (an indexed hash: cheap, and keys have about 238 bits, so
 * the budget slows guessing, it is not what makes guessing hopeless).
 */
async function authenticateCaller(headers: Headers, clientIp: string): Promise<AuthenticatedCall> {
  const presented = extractApiKey(headers);
  const blockedFor = authBlockedFor(clientIp);
  // A network that is sending bad keys gets no concurrent store write per guess: its check starts
  // only once its key is known to be valid.
  let check =
    presented !== undefined && blockedFor === 0 && isWellFormedApiKey(presented)
      ? startKeyRateLimit(keyLimitIdentifier(presented))
      : undefined;
  let caller: ApiCaller;
  try {
    caller = await authenticateApiKey(presented);
  } catch (error) {
    void check?.retract();
    if (error instanceof ApiError) {
      if (blockedFor > 0) throw new ApiError("RATE_LIMIT", { headers: { "retry-after": String(blockedFor) } });
      await mapUnavailable(recordAuthFailure(clientIp));
    }
    throw error;
  }
  check ??= startKeyRateLimit(keyLimitIdentifier(presented!));
  const limit = mapUnavailable(check.decision);
  limit.catch(() => undefined); // awaited by the caller, after the account checks
  return { caller, limit };
}

/**
 * How the wrapper authenticates a caller: authenticateCaller. A seam for measuring, not for
 * production: the bench's auth-off server swaps it (bench/replace-caller-authentication.ts, which
 * refuses in production) to show what the key lookup and the limits cost.
 */
export const callerAuthentication = { authenticate: authenticateCaller };
