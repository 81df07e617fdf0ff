// Cents and Telegram ids are numbers everywhere in the code. Their columns are BIGINT (a wallet may
// outgrow 32 bits, Telegram ids do) and Prisma reads BIGINT as bigint, so Prisma results pass through
// here; pg reads them as numbers already (lib/db/pool.ts). A value beyond 2^53 throws rather than rounds.

export function numberFromDb(value: bigint | number): number {
  const result = Number(value);
  if (!Number.isSafeInteger(result)) throw new RangeError(`${String(value)} is beyond the safe integer range`);
  return result;
}

export function nullableNumberFromDb(value: bigint | number | null): number | null {
  return value === null ? null : numberFromDb(value);
}
