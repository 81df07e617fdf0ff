// API-key authentication on the hot path: one prepared SQL statement fetches the key, its account
// state and its allowlist by the key's hash (lib/auth/sql/lookup-api-caller.ts). Nothing is cached,
// so a revoked key, a ban or an allowlist change takes effect on the very next request.
import { ApiError } from "../http/errors";
import { env } from "../config/env";
import { ipInAnyRange } from "../net/ip";
import { hashApiKey, isWellFormedApiKey } from "./api-key-format";
import { isAccountEligible } from "../settings/is-account-eligible";
import type { EligibilityRule } from "../settings/setting-schemas";
import type { ApiCaller } from "./api-caller-record";
import { lookupApiCaller } from "./sql/lookup-api-caller";

export type { ApiCaller } from "./api-caller-record";
export { touchKeyLastUsed } from "./sql/lookup-api-caller";

/** The key from `X-API-Key` or `Authorization: Bearer`; undefined when neither carries one. */
export function extractApiKey(headers: Headers): string | undefined {
  const direct = headers.get("x-api-key")?.trim();
  if (direct) return direct;
  const authorization = headers.get("authorization");
  if (!authorization) return undefined;
  const match = /^bearer\s+(.*)$/i.exec(authorization.trim());
  return match?.[1]?.trim() || undefined;
}

/** Resolves a presented key to its caller, or throws the catalogue error (lib/http/errors.ts) that applies. */
export async function authenticateApiKey(presented: string | undefined): Promise<ApiCaller> {
  if (presented === undefined) throw new ApiError("MISSING_API_KEY");
  if (!isWellFormedApiKey(presented)) throw new ApiError("INVALID_API_KEY_FORMAT");
  const caller = await lookupApiCaller(hashApiKey(presented));
  if (!caller) throw new ApiError("INVALID_API_KEY");
  if (!caller.livemode && !env().testMode) throw new ApiError("TEST_MODE_OFF");
  return caller;
}

/** Account state, in order of precedence: banned, restricted, blocked by an admin, off, not eligible. */
export function checkAccountAccess(
  caller: ApiCaller,
  eligibility: EligibilityRule | undefined,
  now = Date.now(),
): ApiError | undefined {
  if (caller.bannedAt) return new ApiError("ACCOUNT_BANNED");
  if (caller.restrictedUntil && caller.restrictedUntil.getTime() > now) {
    const until = caller.restrictedUntil.toISOString();
    return new ApiError("ACCOUNT_RESTRICTED", {
      message: `This account is temporarily restricted until ${until}`,
      extra: { restrictedUntil: until },
    });
  }
  if (caller.apiDisabledByAdmin) return new ApiError("API_DISABLED_BY_ADMIN");
  if (!caller.apiEnabled) return new ApiError("API_DISABLED");
  const standing = { createdAt: caller.accountCreatedAt, totalCreditedCents: caller.totalCreditedCents };
  if (!isAccountEligible(eligibility, standing, now)) return new ApiError("API_NOT_ELIGIBLE");
  return undefined;
}

/**
 * A route that spends a supplier call (verify, redeem) needs an account that has had a credit: a
 * free account must not make us pay for calls without limit. total_credited_cents only grows (the
 * credit statement adds to it), so spending the balance back to $0 never takes access away.
 */
export function checkSupplierCallFunding(caller: ApiCaller): ApiError | undefined {
  if (caller.totalCreditedCents > 0) return undefined;
  return new ApiError("API_NOT_ELIGIBLE", {
    message: "Verify and redeem calls need an account funded at least once: top up your wallet in the bot",
  });
}

/** A key that requires a list needs a non-empty one; a non-empty list must contain the client IP. */
export function checkIpAccess(caller: ApiCaller, clientIp: string): ApiError | undefined {
  if (caller.cidrs.length === 0) return caller.requireIpAllowlist ? new ApiError("IP_ALLOWLIST_REQUIRED") : undefined;
  if (!ipInAnyRange(clientIp, caller.cidrs)) {
    return new ApiError("IP_NOT_ALLOWED", { message: `Your IP address ${clientIp} is not on this key's allowlist` });
  }
  return undefined;
}
