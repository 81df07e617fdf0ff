// Public order ids: SVCAPI-<two-letter line code>-<base36 middle>-<hash> (docs/api.md: Invoice).
//
// The middle is the order id through the keyed permutation of lib/ids/permute-id.ts, written as
// exactly 8 base36 digits: two orders' ids say nothing about how many orders the platform took
// between them. The hash is an HMAC of the id keyed with APP_SECRET, so ids cannot be guessed or
// enumerated from one another.
//
// Ids handed out before the permutation carry the raw id in base36 (at most 6 digits for an int id,
// never 8) with the same hash: the middle's length tells the two forms apart, and both resolve.
// orders.public_id keeps each order's id as it was handed out; nothing recomputes it.
//
// The order number, the numeric form of an order reference (docs/api.md: order references), is the
// middle read as a base36 number: what a client can read from its own public id. For an id of the
// permuted form it is the permuted value, for an old one the raw id; either way it names the order
// only together with the form of the public id that order was handed.
import crypto from "node:crypto";
import { env } from "../config/env";
import { PERMUTED_ID_DOMAIN, permuteId, unpermuteId } from "../ids/permute-id";

const PATTERN = /^SVCAPI-([A-Z]{2})-([0-9A-Z]{1,13})-([0-9A-Z]{6})$/;
/** Base36 digits of the permutation's largest value: every new middle is padded to this. */
const PERMUTED_DIGITS = 8;
/** orders.id is an int column: anything above cannot name an order. */
const MAX_ORDER_ID = 2_147_483_647;

function hashFor(id: number): string {
  const digest = crypto.createHmac("sha256", env().appSecret).update(`order:${id}`).digest();
  return (digest.readUIntBE(0, 6) % 36 ** 6).toString(36).toUpperCase().padStart(6, "0");
}

export function formatPublicOrderId(lineCode: string, id: number): string {
  const middle = permuteId("order", id).toString(36).toUpperCase().padStart(PERMUTED_DIGITS, "0");
  return `SVCAPI-${lineCode}-${middle}-${hashFor(id)}`;
}

/** The order number a public id carries (its middle in base36), whether or not its hash checks out. */
export function publicOrderNumber(publicId: string): number | undefined {
  const middle = PATTERN.exec(publicId.toUpperCase())?.[2];
  return middle === undefined ? undefined : parseInt(middle, 36);
}

/**
 * The orders whose public id can carry `number`, each as its id and the middle its public id then
 * has: the permuted form's and the old form's (an order is the one whose stored public id has it).
 */
export function ordersNumbered(number: number): { id: number; middle: string }[] {
  if (!Number.isSafeInteger(number) || number < 0 || number >= PERMUTED_ID_DOMAIN) return [];
  const candidates = [
    { id: unpermuteId("order", number), middle: number.toString(36).toUpperCase().padStart(PERMUTED_DIGITS, "0") },
    { id: number, middle: number.toString(36).toUpperCase() },
  ];
  return candidates.filter(({ id }) => id >= 1 && id <= MAX_ORDER_ID);
}

/** The order id inside a well-formed public id (either form) whose hash checks out; undefined otherwise. */
export function parsePublicOrderId(publicId: string): number | undefined {
  const match = PATTERN.exec(publicId.toUpperCase());
  if (!match?.[2]) return undefined;
  const middle = parseInt(match[2], 36);
  let id = middle; // an id handed out before the permutation: the raw id
  if (match[2].length === PERMUTED_DIGITS) {
    if (middle >= PERMUTED_ID_DOMAIN) return undefined;
    id = unpermuteId("order", middle);
  }
  return Number.isSafeInteger(id) && id >= 1 && id <= MAX_ORDER_ID && hashFor(id) === match[3] ? id : undefined;
}
