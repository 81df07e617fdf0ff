// A signed-in admin proving the second factor again (the dashboard's step-up, and the enrolment's
// first code): throttled like sign-in, the code counting as an attempt until it is right, so a
// session cannot be used to guess codes faster than the sign-in form allows; and a wrong code counts
// against the admin's second step as at sign-in (attemptSecondFactor), from whatever source.
import { normaliseAdminEmail } from "../admin-users/admin-user-record";
import { attemptSecondFactor } from "../admin-users/attempt-second-factor";
import type { PrismaTx } from "../db/prisma";
import { authFailureScope } from "../ratelimit/auth-failure-scope";
import { recordLockout, signInState } from "./sign-in-state";

export type ProveSecondFactorResult<T> =
  | { status: "proved"; value: T }
  | { status: "wrong_code" }
  | { status: "throttled" | "locked" | "full"; retryAfterSeconds: number };

/**
 * Runs `check` (a value when the code is right, undefined when wrong) behind the sign-in throttle of
 * this source and admin, and the admin's wrong-code lock; a right code clears the source's failures
 * like a right password does.
 */
export async function proveSecondFactor<T>(
  input: { adminId: number; email: string; clientIp: string },
  check: (tx: PrismaTx) => Promise<T | undefined>,
): Promise<ProveSecondFactorResult<T>> {
  const { throttle } = signInState();
  const email = normaliseAdminEmail(input.email);
  const decision = throttle.attempt(input.clientIp, email);
  if (!decision.allowed) {
    if (decision.newLockout) await recordLockout(decision.newLockout, { clientIp: input.clientIp, email });
    return { status: decision.reason, retryAfterSeconds: Math.ceil(decision.retryAfterMs / 1000) };
  }
  const attempt = await attemptSecondFactor(
    { adminId: input.adminId, source: authFailureScope(input.clientIp) },
    check,
  );
  if (attempt.status === "locked") return { status: "locked", retryAfterSeconds: attempt.retryAfterSeconds };
  if (attempt.status === "wrong") return { status: "wrong_code" };
  throttle.succeeded(input.clientIp, email);
  return { status: "proved", value: attempt.value };
}
