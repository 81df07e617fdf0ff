// Game-key and gift-card codes are encrypted at rest with AES-256-GCM. The key is derived from
// CODES_ENCRYPTION_KEY; a separate HMAC of the code detects duplicates without decrypting anything.
// A code is stored and delivered exactly as uploaded (only surrounding whitespace is dropped): codes
// can be case-sensitive, so "abC-1" and "ABC-1" are two codes and only an exact repeat is a duplicate.
import crypto from "node:crypto";
import { env } from "../config/env";

function derivedKey(purpose: "encrypt" | "fingerprint"): Buffer {
  return crypto.createHash("sha256").update(`${purpose}:${env().codesEncryptionKey}`).digest();
}

export function normaliseCode(code: string): string {
  return code.trim();
}

export function encryptCode(code: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", derivedKey("encrypt"), iv);
  const body = Buffer.concat([cipher.update(normaliseCode(code), "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":");
}

export function decryptCode(ciphertext: string): string {
  const [version, iv, tag, body] = ciphertext.split(":");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("unknown code ciphertext format");
  const decipher = crypto.createDecipheriv("aes-256-gcm", derivedKey("encrypt"), Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
}

export function fingerprintCode(code: string): string {
  return crypto.createHmac("sha256", derivedKey("fingerprint")).update(normaliseCode(code)).digest("hex");
}
