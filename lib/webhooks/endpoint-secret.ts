// Endpoint signing secrets: `whsec_` and base64 of 24 random bytes, the form the standardwebhooks
// package reads. Stored encrypted (AES-256-GCM with CODES_ENCRYPTION_KEY, like codes), shown once.
import { randomBytes } from "node:crypto";
import { decryptCode, encryptCode } from "../codes/code-crypto";

export function generateEndpointSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

// encryptCode upper-cases its input (codes are case-insensitive); base64 is not, so the secret is
// hex-encoded first.
export function sealSecret(secret: string): string {
  return encryptCode(Buffer.from(secret, "utf8").toString("hex"));
}

// Opened secrets by their sealed form, so the dispatcher, which signs every delivery, derives the key
// and decrypts once per secret instead of once per delivery. A rotation seals a new secret, so a
// stale entry can never be used for it; the map is cleared when it grows past its bound.
const opened = new Map<string, string>();
const MAX_OPENED = 1000;

export function openSecret(sealed: string): string {
  let secret = opened.get(sealed);
  if (secret === undefined) {
    secret = Buffer.from(decryptCode(sealed), "hex").toString("utf8");
    if (opened.size >= MAX_OPENED) opened.clear();
    opened.set(sealed, secret);
  }
  return secret;
}

/** How long the previous secret keeps signing after a rotation, so receivers can switch over. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
