import { getPrisma } from "../db/prisma";

/** Every line's slug and name, for the order table's line filter. */
export async function listGameLineSlugs(): Promise<{ slug: string; gameName: string }[]> {
  return getPrisma().gameLine.findMany({
    select: { slug: true, gameName: true },
    orderBy: [{ sortOrder: "asc" }, { id: "asc" }],
  });
}
