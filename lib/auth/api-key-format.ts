// API key format: "svc_" followed by 40 characters of [A-Za-z0-9] (about 238 bits of randomness);
// a test key (test mode, README: Test mode) begins "svc_test_" and has the same 40 characters.
// Anything else is INVALID_API_KEY_FORMAT. Keys are stored only as SHA-256 hashes: they are long
// random secrets, so a fast hash is enough and keeps the per-request lookup cheap.
import crypto from "node:crypto";

const API_KEY_PREFIX = "svc_";
const TEST_API_KEY_PREFIX = "svc_test_";
const API_KEY_BODY_LENGTH = 40;
export const API_KEY_PATTERN = /^svc_(test_)?[A-Za-z0-9]{40}$/;
/** How many characters of a key are shown after creation: its prefix and 8 more. */
const DISPLAY_BODY_LENGTH = 8;

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

export function hashApiKey(key: string): string {
  return crypto.createHash("sha256").update(key).digest("hex");
}

export function displayPrefix(key: string): string {
  const prefix = key.startsWith(TEST_API_KEY_PREFIX) ? TEST_API_KEY_PREFIX : API_KEY_PREFIX;
  return key.slice(0, prefix.length + DISPLAY_BODY_LENGTH);
}

export function generateApiKey(mode: { livemode: boolean } = { livemode: true }): {
  key: string;
  hash: string;
  prefix: string;
} {
  let body = "";
  while (body.length < API_KEY_BODY_LENGTH) {
    // Rejection sampling keeps every character uniformly likely (248 = 4 * 62).
    for (const byte of crypto.randomBytes(64)) {
      if (byte < 248 && body.length < API_KEY_BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  const key = (mode.livemode ? API_KEY_PREFIX : TEST_API_KEY_PREFIX) + body;
  return { key, hash: hashApiKey(key), prefix: displayPrefix(key) };
}
