// TOTP (RFC 6238) for dashboard sign-in, through otpauth: SHA-1, 6 digits, 30-second steps, the
// parameters every authenticator app reads from the otpauth:// URI. A code is accepted one step
// either side of now (clock drift); the step it matched is returned so a caller can refuse a replay.
// Secrets are sealed at rest with CODES_ENCRYPTION_KEY, as webhook and supplier secrets are.
import { Secret, TOTP } from "otpauth";
import { openSecret, sealSecret } from "../webhooks/endpoint-secret";

const ISSUER = "Top-up ops";
const PERIOD_SECONDS = 30;
/** Steps accepted either side of the current one. */
const WINDOW = 1;

/** A new secret (160 random bits, base32): what the admin's authenticator app stores. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secretBase32: string, email = ""): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: email,
    secret: Secret.fromBase32(secretBase32),
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD_SECONDS,
  });
}

/** The otpauth:// URI an authenticator app scans (as a QR code) or imports. */
export function totpUri(secretBase32: string, email: string): string {
  return totpOf(secretBase32, email).toString();
}

/** A six-digit code as typed ("123 456" and "123456" alike), or undefined for anything else. */
export function parseTotpCode(text: string): string | undefined {
  const digits = text.replace(/[\s-]/g, "");
  return /^\d{6}$/.test(digits) ? digits : undefined;
}

/** The time step `code` belongs to when it is valid now (within the window), else undefined. */
export function matchTotpStep(secretBase32: string, code: string, now = Date.now()): number | undefined {
  const token = parseTotpCode(code);
  if (!token) return undefined;
  const delta = totpOf(secretBase32).validate({ token, timestamp: now, window: WINDOW });
  if (delta === null) return undefined;
  return TOTP.counter({ period: PERIOD_SECONDS, timestamp: now }) + delta;
}

export function sealTotpSecret(secretBase32: string): string {
  return sealSecret(secretBase32);
}

export function openTotpSecret(sealed: string): string {
  return openSecret(sealed);
}
