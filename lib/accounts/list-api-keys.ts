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
      ipAllowlist: { select: { cidr: true }, orderBy: { cidr: "asc" } },
    },
  });
  return keys.map(({ ipAllowlist, ...key }) => ({ ...key, cidrs: ipAllowlist.map((entry) => entry.cidr) }));
}
