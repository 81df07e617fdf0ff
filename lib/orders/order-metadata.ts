// An order's metadata: the client's own references (POST /orders' `metadata`), string keys and values
// within Stripe's familiar limits. Stored as sent, echoed wherever the order is read.

export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;

export type OrderMetadata = Record<string, string>;

/** The metadata to store: none for an absent or empty object, so `{}` is the same order as none. */
export function storedMetadata(metadata: OrderMetadata | undefined): OrderMetadata | null {
  return metadata && Object.keys(metadata).length > 0 ? metadata : null;
}

/** The metadata as the idempotency fingerprint reads it: entries sorted by key, so key order does not matter. */
export function canonicalMetadata(metadata: OrderMetadata | undefined): [string, string][] | null {
  const stored = storedMetadata(metadata);
  if (!stored) return null;
  return Object.entries(stored).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The column as Prisma reads it (any JSON to its types): only ever written from a validated body. */
export function metadataFromDb(value: unknown): OrderMetadata | null {
  return (value ?? null) as OrderMetadata | null;
}
