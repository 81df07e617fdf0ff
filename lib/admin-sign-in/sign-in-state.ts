// The process's one sign-in throttle and password-check queue. Kept on globalThis: the host
// (lib/http/lean-host.ts) and Next's bundle of the dashboard load separate copies of this module
// in the same process, and both must count the same attempts.
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { createBoundedQueue, type BoundedQueue } from "./bounded-queue";
import { SignInThrottle, type NewLockout } from "./sign-in-throttle";

/**
 * Two scrypt checks at a time (each takes a libuv thread and 32 MiB), eight more waiting: a flood
 * of sign-ins leaves the thread pool's other threads to the API and answers the excess at once.
 */
const PASSWORD_CHECK_CONCURRENCY = 2;
const PASSWORD_CHECK_MAX_WAITING = 8;

const holder = globalThis as unknown as { adminSignIn?: { throttle: SignInThrottle; passwordChecks: BoundedQueue } };

export function signInState(): { throttle: SignInThrottle; passwordChecks: BoundedQueue } {
  holder.adminSignIn ??= {
    throttle: new SignInThrottle(),
    passwordChecks: createBoundedQueue({
      concurrency: PASSWORD_CHECK_CONCURRENCY,
      maxWaiting: PASSWORD_CHECK_MAX_WAITING,
    }),
  };
  return holder.adminSignIn;
}

/** A lockout is audited once, when it starts. */
export async function recordLockout(lockout: NewLockout, context: { clientIp: string; email?: string }): Promise<void> {
  await recordAuditEntry({
    actor: "system",
    action: "admin.sign_in_lockout",
    targetType: lockout.scope === "ip" ? "client_ip" : "admin_email",
    targetId: lockout.subject,
    details: {
      attempts: lockout.failures,
      lockedUntil: lockout.lockedUntil.toISOString(),
      clientIp: context.clientIp,
      ...(context.email ? { email: context.email } : {}),
    },
  });
}
