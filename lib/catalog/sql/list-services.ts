import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import type { GameLineRecord } from "../catalog-record";

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
  const { rows } = await getPool().query<GameLineRecord>(
    prepared(
      "list-services",
      sql`SELECT slug, code, game_name AS "gameName", product_name AS "productName", kind, available, orderable,
                 supplier, required_fields AS "requiredFields", server_id_options AS "serverIdOptions"
            FROM game_lines WHERE available ORDER BY sort_order, id`,
    ),
  );
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
