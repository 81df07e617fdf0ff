import { getPool } from "../db/pool";
import { GAME_LINE_COLUMNS, type GameLineRecord } from "./catalog-record";

export interface ServiceEntry {
  productName: string;
  slug: string;
  gameName: string;
  kind: GameLineRecord["kind"];
  required: GameLineRecord["requiredFields"];
  status: "active" | "disabled";
  serverIdOptions?: { value: string; label: string }[];
}

/** GET /services: available lines only; `status` says whether the line takes orders now. */
export async function listServices(): Promise<ServiceEntry[]> {
  const { rows } = await getPool().query<GameLineRecord>({
    name: "list-services",
    text: `SELECT ${GAME_LINE_COLUMNS} FROM game_lines WHERE available ORDER BY sort_order, id`,
  });
  return rows.map((row) => ({
    productName: row.productName,
    slug: row.slug,
    gameName: row.gameName,
    kind: row.kind,
    required: row.requiredFields,
    status: row.orderable ? "active" : "disabled",
    ...(row.serverIdOptions
      ? { serverIdOptions: row.serverIdOptions.map(({ value, label }) => ({ value, label })) }
      : {}),
  }));
}
