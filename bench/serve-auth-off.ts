// The service as scripts/serve.ts runs it, but with API-key lookup and rate limiting replaced through
// the bench's switch (replace-caller-authentication.ts, refused in production): the bench compares
// it with the service to show what those two cost. Callers come from an in-memory table of every
// key, read once; nothing is limited.
import { hashApiKey } from "@/lib/auth/api-key-format";
import { extractApiKey, type ApiCaller } from "@/lib/auth/authenticate-api-key";
import { getPool } from "@/lib/db/pool";
import { ApiError } from "@/lib/http/errors";
import { replaceCallerAuthenticationForBench } from "./replace-caller-authentication";

const ALL_KEYS = `SELECT k.key_hash AS "keyHash", c.* FROM api_keys k, api_caller(key_hash => k.key_hash) c`;
const allowed = { allowed: true, retryAfterSeconds: 0, retryAfterMs: 0, headers: {} as Record<string, string> };

let callers: Promise<Map<string, ApiCaller>> | undefined;
async function loadCallers(): Promise<Map<string, ApiCaller>> {
  const { rows } = await getPool().query<ApiCaller & { keyHash: string }>(ALL_KEYS);
  return new Map(rows.map(({ keyHash, ...caller }) => [keyHash, caller]));
}

replaceCallerAuthenticationForBench(async (headers) => {
  const presented = extractApiKey(headers);
  if (presented === undefined) throw new ApiError("MISSING_API_KEY");
  callers ??= loadCallers();
  const caller = (await callers).get(hashApiKey(presented));
  if (!caller) throw new ApiError("INVALID_API_KEY");
  return { caller, limit: Promise.resolve(allowed) };
});

await import("../scripts/serve");
