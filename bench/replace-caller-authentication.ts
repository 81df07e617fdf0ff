// The bench's switch for its auth-off server (serve-auth-off.ts): it swaps the wrapper's caller
// authentication (the seam callerAuthentication in lib/http/access-policies.ts) for the bench's own,
// to measure what the key lookup and the limits cost. Refused in production, so that no deployed
// process runs without them; everything else in the wrapper (account and IP checks, settings) still runs.
import { isProduction } from "@/lib/config/env";
import { callerAuthentication } from "@/lib/http/access-policies";

export function replaceCallerAuthenticationForBench(authenticate: typeof callerAuthentication.authenticate): void {
  if (isProduction()) throw new Error("Refusing to replace API-key authentication in production");
  callerAuthentication.authenticate = authenticate;
}
