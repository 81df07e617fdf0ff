// Field types shared by the request schemas. Text fields refuse control characters: PostgreSQL
// rejects NUL in text, and no id, player or code legitimately contains one.
import { z } from "zod";

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
