// What the per-key limits count under: a digest of the presented key, not the key's row id. It is
// known before the key lookup, so the limit check runs beside the lookup instead of after it; and
// it is not the database's hash of the key, so the store's key names reveal nothing that the
// api_keys table would match.
import { createHash } from "node:crypto";

export function keyLimitIdentifier(presentedKey: string): string {
  // 132 bits: collisions between keys are out of reach.
  return createHash("sha256").update("rate-limit\0").update(presentedKey).digest("base64url").slice(0, 22);
}
