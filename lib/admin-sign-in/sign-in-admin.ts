// A dashboard sign-in: the throttle first (no password is checked for a throttled or locked IP or
// email), then the password check in the bounded scrypt queue, then, for an admin with two-factor
// on, the code. A wrong or missing code is a failed attempt like a wrong password, and answers the
// same, until that admin's second step is locked by wrong codes from any sources (only someone with
// the password is told so). A lockout is written to the audit log once, when it starts.
import { normaliseAdminEmail, type AdminUserRecord } from "../admin-users/admin-user-record";
import { verifyAdminPassword, type SecondFactorLocked } from "../admin-users/verify-admin-password";
import { authFailureScope } from "../ratelimit/auth-failure-scope";
import { QueueFullError } from "./bounded-queue";
export { SIGN_IN_ERROR_CODES } from "./sign-in-error-codes";
import type { ThrottleScope } from "./sign-in-throttle";
import { recordLockout, signInState } from "./sign-in-state";

export type SignInResult =
  | { status: "signed_in"; admin: AdminUserRecord }
  | { status: "wrong_credentials" }
  /** Too soon after the last failures: try again after retryAfterSeconds. */
  | { status: "throttled"; scope: ThrottleScope; retryAfterSeconds: number }
  | { status: "locked"; scope: ThrottleScope; retryAfterSeconds: number }
  /** The throttle's table of sources is full of live entries: a source it does not know is refused. */
  | { status: "full"; scope: ThrottleScope; retryAfterSeconds: number }
  /** The password was right, and the admin's second step is locked by wrong codes. */
  | { status: "second_factor_locked"; retryAfterSeconds: number }
  /** Too many sign-ins are being checked at once: refused without waiting. */
  | { status: "busy" };

export async function signInAdmin(input: {
  email: string;
  password: string;
  /** A TOTP code or a recovery code; needed only by admins with two-factor on. */
  code?: string;
  clientIp: string;
}): Promise<SignInResult> {
  const { throttle, passwordChecks } = signInState();
  const email = normaliseAdminEmail(input.email);
  const decision = throttle.attempt(input.clientIp, email);
  if (!decision.allowed) {
    if (decision.newLockout) await recordLockout(decision.newLockout, { clientIp: input.clientIp, email });
    return {
      status: decision.reason,
      scope: decision.scope,
      retryAfterSeconds: Math.ceil(decision.retryAfterMs / 1000),
    };
  }
  let admin: AdminUserRecord | SecondFactorLocked | undefined;
  try {
    admin = await passwordChecks.run(() =>
      verifyAdminPassword(email, input.password, input.code ?? "", authFailureScope(input.clientIp)),
    );
  } catch (error) {
    if (error instanceof QueueFullError) return { status: "busy" };
    throw error;
  }
  if (!admin) return { status: "wrong_credentials" };
  if ("secondFactorLocked" in admin)
    return { status: "second_factor_locked", retryAfterSeconds: admin.retryAfterSeconds };
  throttle.succeeded(input.clientIp, email);
  return { status: "signed_in", admin };
}
