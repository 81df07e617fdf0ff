// How long a dashboard session lives and what it may do, from the claims its JWT carries: when it
// signed in, and when it last proved the second factor (null for a session that signed in with the
// password alone, which reaches only the two-factor enrolment).

/** From sign-in, whatever the session does meanwhile: polling or using the dashboard never extends it. */
export const SESSION_ABSOLUTE_LIFETIME_SECONDS = 12 * 60 * 60;
/** A session nobody used for this long ends (an unattended browser); each use moves it on. */
export const SESSION_IDLE_TIMEOUT_SECONDS = 30 * 60;
/** Money and admin changes need the second factor proved this recently (sign-in or a step-up). */
export const STEP_UP_WINDOW_SECONDS = 15 * 60;

export interface SessionClaims {
  /** Unix seconds of the sign-in with the password. */
  signedInAt: number;
  /** Unix seconds of the last second-factor check (sign-in, enrolment or step-up); null when none. */
  secondFactorAt: number | null;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** The claims of a token, or undefined for a token without them (made before they existed). */
export function sessionClaimsOf(token: Record<string, unknown> | null | undefined): SessionClaims | undefined {
  const signedInAt = token?.signedInAt;
  const secondFactorAt = token?.secondFactorAt ?? null;
  if (typeof signedInAt !== "number" || !Number.isInteger(signedInAt)) return undefined;
  if (secondFactorAt !== null && (typeof secondFactorAt !== "number" || !Number.isInteger(secondFactorAt)))
    return undefined;
  return { signedInAt, secondFactorAt };
}

/** Unix seconds when the session ends at the latest. */
export function sessionDeadline(claims: SessionClaims): number {
  return claims.signedInAt + SESSION_ABSOLUTE_LIFETIME_SECONDS;
}

/** Whether the session is within its absolute lifetime (and not stamped in the future). */
export function sessionAlive(claims: SessionClaims, now = nowSeconds()): boolean {
  return claims.signedInAt <= now + 60 && now < sessionDeadline(claims);
}

/**
 * Whether the session signed in after its admin's sessions were last ended (disabled, or their
 * two-factor reset; null: never). Whole seconds, rounded against the session.
 */
export function signedInSinceSessionsEnded(claims: SessionClaims, sessionsValidFrom: Date | null): boolean {
  return sessionsValidFrom === null || claims.signedInAt >= Math.ceil(sessionsValidFrom.getTime() / 1000);
}

/** Whether the session proved the second factor within the step-up window. */
export function secondFactorRecent(claims: SessionClaims, now = nowSeconds()): boolean {
  return claims.secondFactorAt !== null && now - claims.secondFactorAt < STEP_UP_WINDOW_SECONDS;
}

/** Seconds a re-issued token may live: the idle timeout, but never past the absolute deadline. */
export function tokenMaxAge(claims: SessionClaims, now = nowSeconds()): number {
  return Math.max(0, Math.min(SESSION_IDLE_TIMEOUT_SECONDS, sessionDeadline(claims) - now));
}
