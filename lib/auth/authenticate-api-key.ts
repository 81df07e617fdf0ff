// API-key authentication on the hot path: one prepared SQL statement fetches the key, its account
// state and its allowlist by the key's hash. Nothing is cached, so a revoked key, a ban or an
// allowlist change takes effect on the very next request.
import { getPool } from "../db/pool";
import { ApiError } from "../http/errors";
import { ipInAnyRange } from "../net/ip";
import { hashApiKey, isWellFormedApiKey } from "./api-key-format";
import { isAccountEligible } from "../settings/is-account-eligible";
import type { EligibilityRule } from "../settings/setting-schemas";
import { API_CALLER_COLUMNS, API_CALLER_TABLES, type ApiCaller } from "./api-caller-record";

export type { ApiCaller } from "./api-caller-record";

const LOOKUP_SELECT = `SELECT ${API_CALLER_COLUMNS}`;
const LOOKUP_FROM = `FROM ${API_CALLER_TABLES} WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;
const LOOKUP = `${LOOKUP_SELECT} ${LOOKUP_FROM}`;

/** The key from `X-API-Key` or `Authorization: Bearer`; undefined when neither carries one. */
export function extractApiKey(headers: Headers): string | undefined {
  const direct = headers.get("x-api-key")?.trim();
  if (direct) return direct;
  const authorization = headers.get("authorization");
  if (!authorization) return undefined;
  const match = /^bearer\s+(.*)$/i.exec(authorization.trim());
  return match?.[1]?.trim() || undefined;
}

/**
 * A read a route has the key lookup do in the same statement, so that the request costs one
 * database round trip less (POST /orders' placement lookup, lib/orders/place-order.ts). It is one
 * SQL expression over the key's row (`k`, api_keys; `a`, its account) with parameters from $2 on;
 * it runs only when the key exists, and before any account, allowlist or limit check, so it must
 * not write anything but what an unanswered request may leave (a sequence number, say).
 */
export interface KeyLookupExtra {
  /** Names the combined statement, prepared once per connection. */
  name: string;
  expression: string;
  values: unknown[];
}

export interface AuthenticatedKey {
  caller: ApiCaller;
  /** The value of KeyLookupExtra's expression (JSON comes back parsed); undefined without one. */
  extra?: unknown;
}

/** Resolves a presented key to its caller (and its extra read), or throws the section-5 error that applies. */
export async function authenticateApiKey(
  presented: string | undefined,
  extra?: KeyLookupExtra,
): Promise<AuthenticatedKey> {
  if (presented === undefined) throw new ApiError("MISSING_API_KEY");
  if (!isWellFormedApiKey(presented)) throw new ApiError("INVALID_API_KEY_FORMAT");
  const hash = hashApiKey(presented);
  const statement = extra
    ? {
        name: `auth-key-lookup+${extra.name}`,
        text: `${LOOKUP_SELECT}, ${extra.expression} AS "extra" ${LOOKUP_FROM}`,
        values: [hash, ...extra.values],
      }
    : { name: "auth-key-lookup", text: LOOKUP, values: [hash] };
  const { rows } = await getPool().query<ApiCaller & { extra?: unknown }>(statement);
  const row = rows[0];
  if (!row) throw new ApiError("INVALID_API_KEY");
  const { extra: value, ...caller } = row;
  return { caller, extra: value };
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

/** A key that requires a list needs a non-empty one; a non-empty list must contain the client IP. */
export function checkIpAccess(caller: ApiCaller, clientIp: string): ApiError | undefined {
  if (caller.cidrs.length === 0) return caller.requireIpAllowlist ? new ApiError("IP_ALLOWLIST_REQUIRED") : undefined;
  if (!ipInAnyRange(clientIp, caller.cidrs)) {
    return new ApiError("IP_NOT_ALLOWED", { message: `Your IP address ${clientIp} is not on this key's allowlist` });
  }
  return undefined;
}

// last_used_at is informational (the bot's /keys shows it), so it is written in batches: keys used
// since the last flush are stamped in one UPDATE every few seconds, committed without waiting for
// the WAL flush. A write per request would put a commit (and its fsync) beside every order's own.
// Each stamp names the key row by id and creation time: a stamp that lands after its key is gone
// never marks another key that took the same id (the test suite restarts ids between files, and a
// flush due from the previous file marked a fresh key as used).
const LAST_USED_FLUSH_MS = 5000;
const usedSinceFlush = new Map<number, Date>();
let flushTimer: NodeJS.Timeout | undefined;

async function flushLastUsed(): Promise<void> {
  flushTimer = undefined;
  const used = [...usedSinceFlush];
  usedSinceFlush.clear();
  if (used.length === 0) return;
  const client = await getPool().connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL synchronous_commit TO OFF");
    await client.query(
      `UPDATE api_keys k SET last_used_at = now()
         FROM unnest($1::int[], $2::timestamptz[]) AS used(id, created_at)
        WHERE k.id = used.id AND k.created_at = used.created_at`,
      [used.map(([id]) => id), used.map(([, createdAt]) => createdAt)],
    );
    await client.query("COMMIT");
  } catch {
    await client.query("ROLLBACK").catch(() => undefined);
  } finally {
    client.release();
  }
}

/** Records that a key was used; written within LAST_USED_FLUSH_MS, off the request's path. */
export function touchKeyLastUsed(caller: Pick<ApiCaller, "keyId" | "keyCreatedAt">): void {
  usedSinceFlush.set(caller.keyId, caller.keyCreatedAt);
  if (!flushTimer) {
    flushTimer = setTimeout(() => void flushLastUsed().catch(() => undefined), LAST_USED_FLUSH_MS);
    flushTimer.unref();
  }
}
