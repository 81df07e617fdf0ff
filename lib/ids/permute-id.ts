// A keyed permutation of [0, 2^40) for ids the API shows: orders.id and redemptions.id count the
// whole platform's rows, so two raw ids an account receives a day apart would say how many rows
// everyone else made in between. Shown through this permutation they say nothing, and they map back.
//
// A Feistel network of two 20-bit halves whose round function is an HMAC keyed from APP_SECRET and
// the id's purpose ("order", "redemption"), so one purpose's values cannot be matched to another's.
// 2^40 holds every int id and its largest value takes 8 base36 digits (docs/security.md).
import crypto from "node:crypto";
import { env } from "../config/env";

const HALF_BITS = 20;
const HALF = 2 ** HALF_BITS;
const HALF_MASK = HALF - 1;
/** The size of the domain: values are 0 .. 2^40 - 1. */
export const PERMUTED_ID_DOMAIN = HALF * HALF;
// Luby-Rackoff: 4 rounds already give a pseudorandom permutation; 6 leave a margin at little cost.
const ROUNDS = 6;

export type IdPurpose = "order" | "redemption";

const keys = new Map<string, Buffer>();

// A key per purpose, derived from APP_SECRET, never the secret itself (the order hash uses that).
function keyFor(purpose: IdPurpose): Buffer {
  const secret = env().appSecret;
  const name = `${purpose}\0${secret}`;
  let key = keys.get(name);
  if (!key) {
    key = crypto.createHmac("sha256", secret).update(`id-permutation:${purpose}`).digest();
    keys.set(name, key);
  }
  return key;
}

function round(key: Buffer, index: number, half: number): number {
  const input = Buffer.alloc(4);
  input.writeUInt8(index, 0);
  input.writeUIntBE(half, 1, 3);
  return crypto.createHmac("sha256", key).update(input).digest().readUIntBE(0, 3) & HALF_MASK;
}

function assertInDomain(value: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value >= PERMUTED_ID_DOMAIN)
    throw new RangeError(`${value} is outside [0, 2^40)`);
}

/** The value shown in place of `id`. */
export function permuteId(purpose: IdPurpose, id: number): number {
  assertInDomain(id);
  const key = keyFor(purpose);
  let left = Math.floor(id / HALF);
  let right = id % HALF;
  for (let index = 0; index < ROUNDS; index++) [left, right] = [right, left ^ round(key, index, right)];
  return left * HALF + right;
}

/** The id a shown value stands for (the inverse of permuteId). */
export function unpermuteId(purpose: IdPurpose, value: number): number {
  assertInDomain(value);
  const key = keyFor(purpose);
  let left = Math.floor(value / HALF);
  let right = value % HALF;
  for (let index = ROUNDS - 1; index >= 0; index--) [left, right] = [right ^ round(key, index, left), left];
  return left * HALF + right;
}
