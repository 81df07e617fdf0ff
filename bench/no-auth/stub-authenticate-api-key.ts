// Stand-in for lib/auth/authenticate-api-key.ts in the bench's auth-off service: the caller comes
// from an in-memory table of every key, read once, instead of one SQL look-up per request, and the
// last-used bookkeeping write is skipped. Account and IP checks stay (they are plain CPU).
import * as real from "../../lib/auth/authenticate-api-key";
import { hashApiKey } from "../../lib/auth/api-key-format";
import { API_CALLER_COLUMNS, API_CALLER_TABLES } from "../../lib/auth/api-caller-record";
import { getPool } from "../../lib/db/pool";
import { ApiError } from "../../lib/http/errors";

export * from "../../lib/auth/authenticate-api-key";

type Caller = Awaited<ReturnType<typeof real.authenticateApiKey>>;

const ALL_KEYS = `SELECT k.key_hash AS "keyHash", ${API_CALLER_COLUMNS} FROM ${API_CALLER_TABLES} WHERE k.revoked_at IS NULL`;

let callers: Promise<Map<string, Caller>> | undefined;

async function loadCallers(): Promise<Map<string, Caller>> {
  const { rows } = await getPool().query<Caller & { keyHash: string }>(ALL_KEYS);
  return new Map(rows.map(({ keyHash, ...caller }) => [keyHash, caller]));
}

export async function authenticateApiKey(presented: string | undefined): Promise<Caller> {
  if (presented === undefined) throw new ApiError("MISSING_API_KEY");
  callers ??= loadCallers();
  const caller = (await callers).get(hashApiKey(presented));
  if (!caller) throw new ApiError("INVALID_API_KEY");
  return caller;
}

export function touchKeyLastUsed(_keyId: number): void {}
