// Adds game-key or gift-card codes to a product's stock. Codes are stored only encrypted
// (AES-256-GCM) with an HMAC fingerprint; the unique fingerprint makes the database itself refuse
// a code that is already stored, for any product, even when two uploads race.
import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { encryptCode, fingerprintCode } from "../codes/code-crypto";
import { MAX_CODES_PER_UPLOAD, parseCodeList, type CodeSource } from "./parse-code-list";

export type ImportInventoryCodesResult =
  | {
      status: "imported";
      catalogId: string;
      added: number;
      /** Where the codes already stored (for this or any product) were: "codes.csv line 3". Not added. */
      alreadyStored: string[];
      /** Where codes repeating one earlier in the list were. Not added. */
      repeated: string[];
      availableAfter: number;
    }
  /** Nothing was stored: the list has unusable lines (probably the wrong file or column). */
  | { status: "invalid_lines"; invalid: { where: string; reason: string }[] }
  | { status: "empty" }
  | { status: "too_many"; limit: number }
  | { status: "not_found" }
  | { status: "not_a_stock_product" };

/** Codes from one or more sources (a pasted list, uploaded files), read as one list (parse-code-list.ts). */
export async function importInventoryCodes(input: { productId: number; sources: CodeSource[]; actor: string }): Promise<ImportInventoryCodesResult> {
  const parsed = parseCodeList(input.sources);
  if (parsed.invalid.length > 0) return { status: "invalid_lines", invalid: parsed.invalid };
  if (parsed.codes.length === 0) return { status: "empty" };
  if (parsed.codes.length > MAX_CODES_PER_UPLOAD) return { status: "too_many", limit: MAX_CODES_PER_UPLOAD };

  const rows = parsed.codes.map(({ where, code }) => ({ where, ciphertext: encryptCode(code), codeHash: fingerprintCode(code) }));
  return withTransaction(async (client) => {
    const product = await client.query<{ catalogId: string; kind: string }>(
      `SELECT p.catalog_id AS "catalogId", l.kind FROM products p JOIN game_lines l ON l.id = p.line_id WHERE p.id = $1 FOR UPDATE OF p`,
      [input.productId],
    );
    if (product.rowCount === 0) return { status: "not_found" as const };
    const { catalogId, kind } = product.rows[0];
    if (kind !== "gamekey" && kind !== "giftcard") return { status: "not_a_stock_product" as const };

    const inserted = await client.query<{ code_hash: string }>(
      `INSERT INTO inventory_codes (product_id, ciphertext, code_hash)
       SELECT $1, c.ciphertext, c.code_hash FROM unnest($2::text[], $3::text[]) AS c(ciphertext, code_hash)
       ON CONFLICT (code_hash) DO NOTHING
       RETURNING code_hash`,
      [input.productId, rows.map((row) => row.ciphertext), rows.map((row) => row.codeHash)],
    );
    const added = new Set(inserted.rows.map((row) => row.code_hash));
    const alreadyStored = rows.filter((row) => !added.has(row.codeHash)).map((row) => row.where);
    const stock = await client.query<{ available: number }>(
      `SELECT count(*)::int AS available FROM inventory_codes WHERE product_id = $1 AND status = 'available'`,
      [input.productId],
    );
    // Counts only: the audit log must never hold a code.
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "inventory.import",
        targetType: "product",
        targetId: input.productId,
        details: { catalogId, added: added.size, alreadyStored: alreadyStored.length, repeated: parsed.repeated.length },
      },
      client,
    );
    return {
      status: "imported" as const,
      catalogId,
      added: added.size,
      alreadyStored,
      repeated: parsed.repeated,
      availableAfter: stock.rows[0].available,
    };
  });
}
