// Codes that link an admin's Telegram account: 50 random bits, written as two groups of five base32
// letters ("ABCDE-FGHJK"), valid for LINK_CODE_TTL_MINUTES and once. Stored as SHA-256 digests, as
// recovery codes are: with that much randomness and that short a life a digest cannot be guessed back.
import crypto from "node:crypto";

export const LINK_CODE_TTL_MINUTES = 10;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function generateTelegramLinkCode(): string {
  const letters = Array.from(crypto.randomBytes(10), (byte) => ALPHABET[byte & 31]).join("");
  return `${letters.slice(0, 5)}-${letters.slice(5)}`;
}

/** The stored digest of a link code as typed (any case, with or without the dash); undefined when it cannot be one. */
export function hashTelegramLinkCode(text: string): string | undefined {
  const letters = text.replace(/[\s-]/g, "").toUpperCase();
  if (!/^[A-Z2-7]{10}$/.test(letters)) return undefined;
  return crypto.createHash("sha256").update(`telegram-link:${letters}`).digest("hex");
}
