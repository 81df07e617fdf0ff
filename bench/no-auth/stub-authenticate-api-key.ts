// Stand-in for lib/auth/authenticate-api-key.ts in the bench's auth-off service: the caller comes
// from an in-memory table of every key, read once, instead of one SQL look-up per request, and the
// last-used bookkeeping write is skipped. Account and IP checks stay (they are plain CPU). A
// route's own lookup (POST /orders' placement lookup) is not only authentication, so it still runs.
import * as real from "../../lib/auth/authenticate-api-key";
import { hashApiKey } from "../../lib/auth/api-key-format";
import { sql } from "../../lib/db/run-sql";
import { getPool } from "../../lib/db/pool";
import { ApiError } from "../../lib/http/errors";

export * from "../../lib/auth/authenticate-api-key";

type Caller = Awaited<ReturnType<typeof real.authenticateApiKey>>["caller"];

const ALL_KEYS = sql`SELECT k.key_hash AS "keyHash", c.* FROM api_keys k, api_caller(key_hash => k.key_hash) c`;

let callers: Promise<Map<string, Caller>> | undefined;

async function loadCallers(): Promise<Map<string, Caller>> {
  const { rows } = await getPool().query<Caller & { keyHash: string }>(ALL_KEYS);
  return new Map(rows.map(({ keyHash, ...caller }) => [keyHash, caller]));
}

export async function authenticateApiKey(
  presented: string | undefined,
  lookup?: real.KeyLookup,
): Promise<real.AuthenticatedKey> {
  if (presented === undefined) throw new ApiError("MISSING_API_KEY");
  const hash = hashApiKey(presented);
  if (lookup) {
    const found = await lookup(hash);
    if (!found) throw new ApiError("INVALID_API_KEY");
    return found;
  }
  callers ??= loadCallers();
  const caller = (await callers).get(hash);
  if (!caller) throw new ApiError("INVALID_API_KEY");
  return { caller };
}

export function touchKeyLastUsed(_keyId: number): void {}
