// Cents (and BIGINT ids and counters) are numbers everywhere in the code: one type end to end. Their
// columns are BIGINT (a wallet may outgrow 32 bits, Telegram ids do); integer cents stay exact in a
// number up to 2^53 (about 90 trillion dollars), and number is what JSON, the invoice's arithmetic
// and every caller already use, while bigint would need converting at each of them.
// The two readers differ: raw pg queries get numbers already (lib/db/pool.ts parses int8), Prisma
// gets bigint, so Prisma results pass through here. A value beyond 2^53 throws rather than rounds.

export function numberFromDb(value: bigint | number): number {
  const result = Number(value);
  if (!Number.isSafeInteger(result)) throw new RangeError(`${String(value)} is beyond the safe integer range`);
  return result;
}

export function nullableNumberFromDb(value: bigint | number | null): number | null {
  return value === null ? null : numberFromDb(value);
}

/**
 * A Prisma model type with its BIGINT fields as the numbers the code uses: the type of a row the
 * hot path's raw SQL reads (pg parses int8 to number), built from Prisma's generated model.
 */
export type BigintsAsNumbers<T> = {
  [K in keyof T]: T[K] extends bigint ? number : T[K] extends bigint | null ? number | null : T[K];
};
