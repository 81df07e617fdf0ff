// A signed-in admin proving the second factor again (the dashboard's step-up, and the enrolment's
// first code): throttled like sign-in, the code counting as an attempt until it is right, so a
// session cannot be used to guess codes faster than the sign-in form allows.
import { normaliseAdminEmail } from "../admin-users/admin-user-record";
import { recordLockout, signInState } from "./sign-in-state";

export type ProveSecondFactorResult<T> =
  | { status: "proved"; value: T }
  | { status: "wrong_code" }
  | { status: "throttled" | "locked"; retryAfterSeconds: number };

/**
 * Runs `check` (true-ish when the code is right) behind the sign-in throttle of this source and
 * admin; a right code clears the admin's failures like a right password does.
 */
export async function proveSecondFactor<T>(
  input: { email: string; clientIp: string },
  check: () => Promise<T | undefined>,
): Promise<ProveSecondFactorResult<T>> {
  const { throttle } = signInState();
  const email = normaliseAdminEmail(input.email);
  const decision = throttle.attempt(input.clientIp, email);
  if (!decision.allowed) {
    if (decision.newLockout) await recordLockout(decision.newLockout, { clientIp: input.clientIp, email });
    return { status: decision.reason, retryAfterSeconds: Math.ceil(decision.retryAfterMs / 1000) };
  }
  const value = await check();
  if (value === undefined) return { status: "wrong_code" };
  throttle.succeeded(input.clientIp, email);
  return { status: "proved", value };
}
