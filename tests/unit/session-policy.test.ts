// The session limits from a token's claims: the absolute lifetime from sign-in, the idle timeout a
// re-issued token gets (never past the lifetime), and the step-up window of the second factor.
import { describe, expect, it } from "vitest";
import {
  secondFactorRecent,
  sessionAlive,
  sessionClaimsOf,
  SESSION_ABSOLUTE_LIFETIME_SECONDS,
  SESSION_IDLE_TIMEOUT_SECONDS,
  STEP_UP_WINDOW_SECONDS,
  tokenMaxAge,
} from "@/lib/admin-sign-in/session-policy";

const SIGNED_IN = 1_800_000_000;

describe("session policy", () => {
  it("reads the claims, and none from a token made before they existed or with bad values", () => {
    expect(sessionClaimsOf({ signedInAt: SIGNED_IN, secondFactorAt: null })).toEqual({
      signedInAt: SIGNED_IN,
      secondFactorAt: null,
    });
    expect(sessionClaimsOf({ signedInAt: SIGNED_IN })).toEqual({ signedInAt: SIGNED_IN, secondFactorAt: null });
    expect(sessionClaimsOf({ email: "a@example.com" })).toBeUndefined();
    expect(sessionClaimsOf({ signedInAt: "1800000000" })).toBeUndefined();
    expect(sessionClaimsOf({ signedInAt: SIGNED_IN, secondFactorAt: "yes" })).toBeUndefined();
  });

  it("ends a session 12 hours after sign-in, whatever happened since", () => {
    const claims = { signedInAt: SIGNED_IN, secondFactorAt: SIGNED_IN };
    expect(sessionAlive(claims, SIGNED_IN)).toBe(true);
    expect(sessionAlive(claims, SIGNED_IN + SESSION_ABSOLUTE_LIFETIME_SECONDS - 1)).toBe(true);
    expect(sessionAlive(claims, SIGNED_IN + SESSION_ABSOLUTE_LIFETIME_SECONDS)).toBe(false);
    // A sign-in time far in the future is no way around it.
    expect(sessionAlive({ signedInAt: SIGNED_IN + 3600, secondFactorAt: null }, SIGNED_IN)).toBe(false);
  });

  it("re-issues a token for the idle timeout, never past the absolute lifetime", () => {
    const claims = { signedInAt: SIGNED_IN, secondFactorAt: SIGNED_IN };
    expect(tokenMaxAge(claims, SIGNED_IN + 60)).toBe(SESSION_IDLE_TIMEOUT_SECONDS);
    expect(tokenMaxAge(claims, SIGNED_IN + SESSION_ABSOLUTE_LIFETIME_SECONDS - 100)).toBe(100);
    expect(tokenMaxAge(claims, SIGNED_IN + SESSION_ABSOLUTE_LIFETIME_SECONDS + 100)).toBe(0);
  });

  it("counts the second factor as recent for 15 minutes, and never for a password-only session", () => {
    const claims = { signedInAt: SIGNED_IN, secondFactorAt: SIGNED_IN + 600 };
    expect(secondFactorRecent(claims, SIGNED_IN + 600 + STEP_UP_WINDOW_SECONDS - 1)).toBe(true);
    expect(secondFactorRecent(claims, SIGNED_IN + 600 + STEP_UP_WINDOW_SECONDS)).toBe(false);
    expect(secondFactorRecent({ signedInAt: SIGNED_IN, secondFactorAt: null }, SIGNED_IN)).toBe(false);
  });
});
