// Stand-in for lib/auth/authenticate-api-key.ts in the bench's auth-off service: the caller comes
// from an in-memory table of every key, read once, instead of one SQL look-up per request, and the
// last-used bookkeeping write is skipped. Account and IP checks stay (they are plain CPU). A
// route's extra read (KeyLookupExtra: POST /orders' placement lookup) is not authentication, so it
// still runs, as a statement of its own.
import * as real from "../../lib/auth/authenticate-api-key";
import { hashApiKey } from "../../lib/auth/api-key-format";
import { API_CALLER_COLUMNS, API_CALLER_TABLES } from "../../lib/auth/api-caller-record";
import { getPool } from "../../lib/db/pool";
import { ApiError } from "../../lib/http/errors";

export * from "../../lib/auth/authenticate-api-key";

type Caller = Awaited<ReturnType<typeof real.authenticateApiKey>>["caller"];

const ALL_KEYS = `SELECT k.key_hash AS "keyHash", ${API_CALLER_COLUMNS} FROM ${API_CALLER_TABLES} WHERE k.revoked_at IS NULL`;

let callers: Promise<Map<string, Caller>> | undefined;

async function loadCallers(): Promise<Map<string, Caller>> {
  const { rows } = await getPool().query<Caller & { keyHash: string }>(ALL_KEYS);
  return new Map(rows.map(({ keyHash, ...caller }) => [keyHash, caller]));
}

export async function authenticateApiKey(
  presented: string | undefined,
  extra?: real.KeyLookupExtra,
): Promise<real.AuthenticatedKey> {
  if (presented === undefined) throw new ApiError("MISSING_API_KEY");
  callers ??= loadCallers();
  const hash = hashApiKey(presented);
  const caller = (await callers).get(hash);
  if (!caller) throw new ApiError("INVALID_API_KEY");
  if (!extra) return { caller };
  const { rows } = await getPool().query<{ extra: unknown }>({
    name: `no-auth-extra+${extra.name}`,
    text: `SELECT ${extra.expression} AS "extra" FROM ${API_CALLER_TABLES} WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    values: [hash, ...extra.values],
  });
  return { caller, extra: rows[0]?.extra };
}

export function touchKeyLastUsed(_keyId: number): void {}
