// A redeem code is a bearer value: whoever reads it can spend it. It is never stored; what is kept
// is an HMAC keyed with APP_SECRET (recognises the same code again without revealing it, and cannot
// be brute-forced from a database dump without the secret) and its last 4 letters or digits (what
// support and the account holder can talk about).
import crypto from "node:crypto";
import { env } from "../config/env";

/** The form sent to the supplier and fingerprinted: codes are case-insensitive. */
export function normaliseRedeemCode(code: string): string {
  return code.trim().toUpperCase();
}

export function fingerprintRedeemCode(code: string): string {
  return crypto
    .createHmac("sha256", env().appSecret)
    .update(`redeem-code:${normaliseRedeemCode(code)}`)
    .digest("hex");
}

/** The last 4 letters or digits, hyphens not counted ("ABCD-EF-12" -> "EF12"). */
export function redeemCodeLast4(code: string): string {
  return normaliseRedeemCode(code).replace(/-/g, "").slice(-4);
}
