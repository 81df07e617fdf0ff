// Stand-in for lib/http/access-policies.ts in the bench's auth-off service: every key is always
// within its limits and no failed-auth budget is kept. Settings are still read as the service reads them.
import * as real from "../../lib/http/access-policies";

export * from "../../lib/http/access-policies";

for (const name of ["applyKeyRateLimit", "guardFailedAuth", "noteFailedAuth"]) {
  if (!(name in real)) console.warn(`[no-auth] lib/http/access-policies.ts no longer exports ${name}: update bench/no-auth`);
}

export async function applyKeyRateLimit(_keyId: number) {
  return { allowed: true, retryAfterSeconds: 0, headers: {} as Record<string, string> };
}

export function guardFailedAuth(_clientIp: string): void {}

export async function noteFailedAuth(_clientIp: string): Promise<void> {}
