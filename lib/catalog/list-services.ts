import { getPool } from "../db/pool";
import type { LineKind } from "../generated/prisma/enums";

export interface ServiceEntry {
  productName: string;
  slug: string;
  gameName: string;
  kind: LineKind;
  required: { field: string; label: string }[];
  status: "active" | "disabled";
  serverIdOptions?: { value: string; label: string }[];
}

/** GET /services: available lines only; `status` says whether the line takes orders now. */
export async function listServices(): Promise<ServiceEntry[]> {
  const { rows } = await getPool().query({
    name: "list-services",
    text: `SELECT product_name, slug, game_name, kind, required_fields, server_id_options, orderable
             FROM game_lines WHERE available ORDER BY sort_order, id`,
  });
  return rows.map((row) => ({
    productName: row.product_name,
    slug: row.slug,
    gameName: row.game_name,
    kind: row.kind,
    required: row.required_fields,
    status: row.orderable ? "active" : "disabled",
    ...(row.server_id_options
      ? { serverIdOptions: (row.server_id_options as { value: string; label: string }[]).map(({ value, label }) => ({ value, label })) }
      : {}),
  }));
}
