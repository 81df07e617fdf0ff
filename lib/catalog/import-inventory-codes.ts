// Adds game-key or gift-card codes to a product's stock, each exactly as uploaded (case kept).
// Codes are stored only encrypted (AES-256-GCM) with an HMAC fingerprint of the exact code; the
// unique fingerprint makes the database itself refuse a code that is already stored, for any
// product, even when two uploads race. A code differing only in case is a different code.
import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
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
export async function importInventoryCodes(input: {
  productId: number;
  sources: CodeSource[];
  actor: string;
}): Promise<ImportInventoryCodesResult> {
  const parsed = parseCodeList(input.sources);
  if (parsed.invalid.length > 0) return { status: "invalid_lines", invalid: parsed.invalid };
  if (parsed.codes.length === 0) return { status: "empty" };
  if (parsed.codes.length > MAX_CODES_PER_UPLOAD) return { status: "too_many", limit: MAX_CODES_PER_UPLOAD };

  const rows = parsed.codes.map(({ where, code }) => ({
    where,
    ciphertext: encryptCode(code),
    codeHash: fingerprintCode(code),
  }));
  return getPrisma().$transaction(async (tx) => {
    const product = await tx.product.findUnique({
      select: { catalogId: true, line: { select: { kind: true } } },
      where: { id: input.productId },
    });
    if (!product) return { status: "not_found" as const };
    const { catalogId } = product;
    if (product.line.kind !== "gamekey" && product.line.kind !== "giftcard")
      return { status: "not_a_stock_product" as const };

    // skipDuplicates is ON CONFLICT DO NOTHING: what comes back is what was new.
    const inserted = await tx.inventoryCode.createManyAndReturn({
      select: { codeHash: true },
      data: rows.map((row) => ({ productId: input.productId, ciphertext: row.ciphertext, codeHash: row.codeHash })),
      skipDuplicates: true,
    });
    const added = new Set(inserted.map((row) => row.codeHash));
    const alreadyStored = rows.filter((row) => !added.has(row.codeHash)).map((row) => row.where);
    const availableAfter = await tx.inventoryCode.count({ where: { productId: input.productId, status: "available" } });
    // Counts only: the audit log must never hold a code.
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "inventory.import",
        targetType: "product",
        targetId: input.productId,
        details: {
          catalogId,
          added: added.size,
          alreadyStored: alreadyStored.length,
          repeated: parsed.repeated.length,
        },
      },
      tx,
    );
    return {
      status: "imported" as const,
      catalogId,
      added: added.size,
      alreadyStored,
      repeated: parsed.repeated,
      availableAfter,
    };
  });
}
