// Field types shared by the request schemas. Text fields refuse control characters: PostgreSQL
// rejects NUL in text, and no id, player or code legitimately contains one.
import { z } from "zod";
import type { ErrorKey } from "../http/errors";

export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

export function plainText(max: number) {
  return z.string().trim().min(1).max(max).regex(NO_CONTROL_CHARACTERS, "must not contain control characters");
}

/** A JSON string, or a non-negative integer read as its decimal string (a zoneId sent as 12345). */
export function identifier(description: string, max = 64) {
  return z
    .union([plainText(max), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)])
    .transform((value) => String(value))
    .meta({ description });
}

/**
 * Like `identifier`, but the string is kept exactly as sent (surrounding spaces included), because
 * the invoice echoes it; the order code trims it for everything else. Blank strings are the
 * caller's to read as missing (blankAsMissing).
 */
export function echoedIdentifier(description: string, max = 64) {
  return z
    .union([
      z.string().max(max).regex(NO_CONTROL_CHARACTERS, "must not contain control characters"),
      z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    ])
    .transform((value) => String(value))
    .meta({ description });
}

/** null, "" and blanks read as absent, so a missing required field is one error however it is sent. */
export function blankAsMissing(value: unknown): unknown {
  return value === null || (typeof value === "string" && value.trim() === "") ? undefined : value;
}

/** Check options that make a failed check answer the named catalogue error instead of INVALID BODY. */
export function failsAs(key: ErrorKey, message: string) {
  return { message, params: { errorKey: key } };
}

/** On every invoice, balance, ledger entry and event: false for test mode's play money. */
export const livemode = z.boolean().meta({
  description: "false in test mode (a svc_test_ key's play money, fulfilled by the sandbox); true for live money",
});
