// Dashboard passwords are stored as "scrypt$N$r$p$salt$hash" (salt and hash in base64url). scrypt
// is memory-hard, so a stolen table costs an attacker ~32 MiB and tens of milliseconds per guess;
// the parameters travel with each hash, so raising them later does not lock anyone out.
import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

/** Node's default scrypt memory cap (32 MiB) is exactly 128·N·r for N=2^15, r=8: give it headroom. */
function maxmemFor(N: number, r: number): number {
  return 128 * N * r * 2;
}

export async function hashAdminPassword(password: string): Promise<string> {
  const { N, r, p } = SCRYPT_PARAMS;
  const salt = crypto.randomBytes(SALT_BYTES);
  const hash = await scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N, r, p, maxmem: maxmemFor(N, r) });
  return ["scrypt", N, r, p, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

/** True when `password` produces `stored`; false for any malformed stored value. Constant-time compare. */
export async function matchesPasswordHash(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N = NaN, r = NaN, p = NaN] = parts.slice(1, 4).map(Number); // NaN fails the bounds below
  // Bounds keep a tampered row from asking for gigabytes of memory.
  if (
    ![N, r, p].every(Number.isSafeInteger) ||
    N < 2 ||
    N > 2 ** 20 ||
    (N & (N - 1)) !== 0 ||
    r < 1 ||
    r > 32 ||
    p < 1 ||
    p > 16
  )
    return false;
  const salt = Buffer.from(parts[4] ?? "", "base64url");
  const expected = Buffer.from(parts[5] ?? "", "base64url");
  if (salt.length === 0 || expected.length === 0) return false;
  const actual = await scrypt(password.normalize("NFKC"), salt, expected.length, { N, r, p, maxmem: maxmemFor(N, r) });
  return crypto.timingSafeEqual(actual, expected);
}
