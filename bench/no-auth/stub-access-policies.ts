// Stand-in for lib/http/access-policies.ts in the bench's auth-off service: the key is still looked
// up (through whichever authenticate-api-key module the bench chose), but every key is always within
// its limits and no failed-auth budget is kept. Settings are still read as the service reads them.
import * as real from "../../lib/http/access-policies";
import { authenticateApiKey, extractApiKey, type KeyLookup } from "../../lib/auth/authenticate-api-key";

export * from "../../lib/http/access-policies";

for (const name of ["authenticateCaller", "readApiSettings"]) {
  if (!(name in real))
    console.warn(`[no-auth] lib/http/access-policies.ts no longer exports ${name}: update bench/no-auth`);
}

const allowed = { allowed: true, retryAfterSeconds: 0, retryAfterMs: 0, headers: {} as Record<string, string> };

export async function authenticateCaller(
  headers: Headers,
  _clientIp: string,
  lookup?: KeyLookup,
): Promise<real.AuthenticatedCall> {
  const { caller, extra: value } = await authenticateApiKey(extractApiKey(headers), lookup);
  return { caller, limit: Promise.resolve(allowed), extra: value };
}
