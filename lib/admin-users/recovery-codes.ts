// Two-factor recovery codes: 80 random bits each, written as four groups of four base32 letters
// ("ABCD-EFGH-JKLM-NPQR"). They are stored as SHA-256 digests: with that much randomness a digest
// cannot be guessed back, and a digest can be looked up directly (a salted slow hash could not).
import crypto from "node:crypto";

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function generateRecoveryCode(): string {
  const bytes = crypto.randomBytes(16);
  const letters = Array.from(bytes, (byte) => ALPHABET[byte & 31]).join("");
  return letters.match(/.{4}/g)!.join("-");
}

/** A recovery code as typed (any case, with or without dashes or spaces), or undefined. */
export function normaliseRecoveryCode(text: string): string | undefined {
  const letters = text.replace(/[\s-]/g, "").toUpperCase();
  return /^[A-Z2-7]{16}$/.test(letters) ? letters : undefined;
}

/** The stored digest of a recovery code; undefined when the text cannot be one. */
export function hashRecoveryCode(text: string): string | undefined {
  const code = normaliseRecoveryCode(text);
  return code === undefined ? undefined : crypto.createHash("sha256").update(`recovery:${code}`).digest("hex");
}
