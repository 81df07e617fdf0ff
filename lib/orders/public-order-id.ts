// Public order ids: SVCAPI-<two-letter line code>-<base36 numeric id>-<hash>. The hash is an HMAC of
// the id keyed with APP_SECRET, so ids cannot be guessed or enumerated from one another.
import crypto from "node:crypto";
import { env } from "../config/env";

const PATTERN = /^SVCAPI-([A-Z]{2})-([0-9A-Z]{1,13})-([0-9A-Z]{6})$/;

function hashFor(id: number): string {
  const digest = crypto.createHmac("sha256", env().appSecret).update(`order:${id}`).digest();
  return (digest.readUIntBE(0, 6) % 36 ** 6).toString(36).toUpperCase().padStart(6, "0");
}

export function formatPublicOrderId(lineCode: string, id: number): string {
  return `SVCAPI-${lineCode}-${id.toString(36).toUpperCase()}-${hashFor(id)}`;
}

/** The numeric id inside a well-formed public id whose hash checks out; undefined otherwise. */
export function parsePublicOrderId(publicId: string): number | undefined {
  const match = PATTERN.exec(publicId.toUpperCase());
  if (!match?.[2]) return undefined;
  const id = parseInt(match[2], 36);
  return Number.isSafeInteger(id) && hashFor(id) === match[3] ? id : undefined;
}
