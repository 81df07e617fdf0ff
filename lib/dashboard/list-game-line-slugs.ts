import { getPool } from "../db/pool";

/** Every line's slug and name, for the order table's line filter. */
export async function listGameLineSlugs(): Promise<{ slug: string; gameName: string }[]> {
  const { rows } = await getPool().query<{ slug: string; gameName: string }>(
    `SELECT slug, game_name AS "gameName" FROM game_lines ORDER BY sort_order, id`,
  );
  return rows;
}
