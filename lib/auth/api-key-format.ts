// API key format: "svc_" followed by 40 characters of [A-Za-z0-9] (about 238 bits of randomness).
// Anything else is INVALID_API_KEY_FORMAT. Keys are stored only as SHA-256 hashes: they are long
// random secrets, so a fast hash is enough and keeps the per-request lookup cheap.
import crypto from "node:crypto";

export const API_KEY_PREFIX = "svc_";
export const API_KEY_BODY_LENGTH = 40;
export const API_KEY_PATTERN = /^svc_[A-Za-z0-9]{40}$/;
/** How many characters of a key are shown after creation ("svc_" + 8). */
export const API_KEY_DISPLAY_LENGTH = API_KEY_PREFIX.length + 8;

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

export function hashApiKey(key: string): string {
  return crypto.createHash("sha256").update(key).digest("hex");
}

export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_DISPLAY_LENGTH);
}

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  let body = "";
  while (body.length < API_KEY_BODY_LENGTH) {
    // Rejection sampling keeps every character uniformly likely (248 = 4 * 62).
    for (const byte of crypto.randomBytes(64)) {
      if (byte < 248 && body.length < API_KEY_BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  const key = API_KEY_PREFIX + body;
  return { key, hash: hashApiKey(key), prefix: displayPrefix(key) };
}
