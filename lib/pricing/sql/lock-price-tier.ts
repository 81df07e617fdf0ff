import type { PrismaTx } from "../../db/prisma";

/**
 * Locks the tier's row until the transaction ends and returns its name (undefined: no such tier).
 * FOR UPDATE, which Prisma has not: an account being moved onto the tier meanwhile (its foreign
 * key check) waits for the removal, so the removal's audit entry names every account it moved.
 */
export async function lockPriceTier(tx: PrismaTx, tierId: number): Promise<string | undefined> {
  const rows = await tx.$queryRaw<{ name: string }[]>`SELECT name FROM price_tiers WHERE id = ${tierId} FOR UPDATE`;
  return rows[0]?.name;
}

/**
 * The tier named `name`, held (FOR KEY SHARE) until the transaction ends so it cannot be removed
 * before an account moved onto it commits; undefined when there is none.
 */
export async function holdPriceTierByName(
  tx: PrismaTx,
  name: string,
): Promise<{ id: number; name: string } | undefined> {
  const rows = await tx.$queryRaw<{ id: number; name: string }[]>`
    SELECT id, name FROM price_tiers WHERE name = ${name} FOR KEY SHARE`;
  return rows[0];
}
