import { getPrisma, type PrismaDb } from "../db/prisma";

export interface ApiKeySummary {
  id: number;
  /** The only part of a key ever shown after /newkey. */
  prefix: string;
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  requireIpAllowlist: boolean;
  /** Normalised CIDR entries, sorted. */
  cidrs: string[];
  /** False for a test key. */
  livemode: boolean;
  /** The key's daily spending limit (null: none) and what its orders charged today (UTC). */
  dailyLimitCents: number | null;
  spentTodayCents: number;
}

/** The account's active (not revoked) keys with their IP allowlists, oldest first. */
export async function listApiKeys(accountId: number, db: PrismaDb = getPrisma()): Promise<ApiKeySummary[]> {
  const keys = await db.apiKey.findMany({
    where: { accountId, revokedAt: null },
    orderBy: { id: "asc" },
    select: {
      id: true,
      prefix: true,
      name: true,
      createdAt: true,
      lastUsedAt: true,
      requireIpAllowlist: true,
      livemode: true,
      dailyLimitCents: true,
      spentDay: true,
      spentTodayCents: true,
      ipAllowlist: { select: { cidr: true }, orderBy: { cidr: "asc" } },
    },
  });
  const today = new Date().toISOString().slice(0, 10);
  return keys.map(({ ipAllowlist, dailyLimitCents, spentDay, spentTodayCents, ...key }) => ({
    ...key,
    cidrs: ipAllowlist.map((entry) => entry.cidr),
    dailyLimitCents: dailyLimitCents === null ? null : Number(dailyLimitCents),
    // The count is of the key's last day of orders: on a later day nothing is spent yet.
    spentTodayCents: spentDay?.toISOString().slice(0, 10) === today ? Number(spentTodayCents) : 0,
  }));
}
