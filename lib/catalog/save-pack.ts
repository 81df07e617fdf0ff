// Creates a pack on a line or edits one, validated by PackFields and the rules of its line, and
// audited in the same transaction. A pack's catalog id is the pid clients order by: it is fixed once
// the pack exists. A price change applies to new orders only: an order keeps the unit price it was
// placed at (orders.unit_price_cents). GET /products reads the table directly, so a saved pack
// shows there at once.
import { getPrisma, type PrismaTx } from "../db/prisma";
import { Prisma } from "../generated/prisma/client";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { numberFromDb } from "../db/number-from-db";
import { PackFields, describeIssues, packLineProblems } from "./catalog-fields";
import type { SaveCatalogResult } from "./save-game-line";
import { expectedVersion, nextVersion, staleEditMessage } from "../db/edit-version";

/**
 * Inserts a validated pack at the end of its line. A top-up pack is given an offer at the line's
 * default supplier account (GameLine.supplier) when that account exists, at cost 0 and priority 1
 * as the seed does, so the worker can route it; otherwise it has no supplier and the catalog page
 * flags it until one is added on the suppliers page. Returns the new id and the offer's supplier.
 */
export async function insertPack(
  tx: PrismaTx,
  pack: PackFields,
  line: { id: number; kind: string; supplier: string },
): Promise<{ id: number; offerAt: string | null }> {
  const last = await tx.product.aggregate({ where: { lineId: line.id }, _max: { sortOrder: true } });
  const created = await tx.product.create({
    data: {
      catalogId: pack.catalogId,
      lineId: line.id,
      packName: pack.packName,
      priceCents: pack.priceCents,
      active: pack.active,
      stockAlertBelow: pack.stockAlertBelow,
      supplierSku: pack.supplierSku,
      sortOrder: (last._max.sortOrder ?? -1) + 1,
    },
    select: { id: true },
  });
  if (line.kind !== "topup" || pack.supplierSku === null) return { id: created.id, offerAt: null };
  const supplier = await tx.supplier.findUnique({ where: { name: line.supplier }, select: { id: true } });
  if (!supplier) return { id: created.id, offerAt: null };
  await tx.supplierOffer.create({
    data: { productId: created.id, supplierId: supplier.id, sku: pack.supplierSku, costCents: 0, priority: 1 },
  });
  return { id: created.id, offerAt: line.supplier };
}

interface SavePackInput {
  /** Absent: a new pack on `lineId`. */
  productId?: number;
  lineId?: number;
  fields: unknown;
  /** The version the edit form was opened on (lib/db/edit-version.ts). */
  version?: string;
  actor: string;
}

export async function savePack(input: SavePackInput): Promise<SaveCatalogResult> {
  const parsed = PackFields.safeParse(input.fields);
  if (!parsed.success) return { status: "refused", problems: describeIssues(parsed.error) };
  const pack = parsed.data;
  try {
    return await getPrisma().$transaction(async (tx) => {
      if (input.productId === undefined) return createPack(tx, input, pack);
      return updatePack(tx, input, input.productId, pack);
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      return { status: "refused", problems: [`Catalog id: ${pack.catalogId} was created by another admin just now`] };
    throw error;
  }
}

async function createPack(tx: PrismaTx, input: SavePackInput, pack: PackFields): Promise<SaveCatalogResult> {
  if (input.lineId === undefined) return { status: "refused", problems: ["No line given."] };
  const line = await tx.gameLine.findUnique({ where: { id: input.lineId } });
  if (!line) return { status: "refused", problems: ["No such line."] };
  const problems = packLineProblems(pack, line);
  if (problems.length > 0) return { status: "refused", problems };
  if (await tx.product.findUnique({ where: { catalogId: pack.catalogId }, select: { id: true } }))
    return { status: "refused", problems: [`Catalog id: ${pack.catalogId} already exists`] };
  const created = await insertPack(tx, pack, line);
  await recordAuditEntry(
    {
      actor: input.actor,
      action: "product.create",
      targetType: "product",
      targetId: created.id,
      details: { ...pack, line: line.slug, offerAt: created.offerAt },
    },
    tx,
  );
  const supplierNote =
    line.kind !== "topup"
      ? ""
      : created.offerAt
        ? ` Sent to supplier ${created.offerAt} at cost $0.00: set its cost on the suppliers page.`
        : ` It has no supplier yet (no account named ${line.supplier}): add one on the suppliers page.`;
  return { status: "created", id: created.id, message: `Pack ${pack.catalogId} created.${supplierNote}` };
}

async function updatePack(
  tx: PrismaTx,
  input: SavePackInput,
  productId: number,
  pack: PackFields,
): Promise<SaveCatalogResult> {
  const before = await tx.product.findUnique({ where: { id: productId }, include: { line: true } });
  if (!before) return { status: "refused", problems: ["No such pack."] };
  if (pack.catalogId !== before.catalogId)
    return {
      status: "refused",
      problems: [`Catalog id: ${before.catalogId} is the pid clients order by and cannot change`],
    };
  const problems = packLineProblems(pack, before.line);
  if (problems.length > 0) return { status: "refused", problems };
  const old = {
    packName: before.packName,
    priceCents: numberFromDb(before.priceCents),
    active: before.active,
    stockAlertBelow: before.stockAlertBelow,
    supplierSku: before.supplierSku,
  };
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(old) as (keyof typeof old)[]) {
    if (old[key] !== pack[key]) changes[key] = { from: old[key], to: pack[key] };
  }
  if (Object.keys(changes).length === 0)
    return { status: "unchanged", id: before.id, message: `${pack.catalogId}: nothing to change.` };
  // Compare-and-set on the row's version, as in save-game-line.ts.
  const expected = expectedVersion(input.version) ?? before.updatedAt;
  const { count } = await tx.product.updateMany({
    where: { id: before.id, updatedAt: expected },
    data: {
      updatedAt: nextVersion(expected),
      packName: pack.packName,
      priceCents: pack.priceCents,
      active: pack.active,
      stockAlertBelow: pack.stockAlertBelow,
      supplierSku: pack.supplierSku,
    },
  });
  if (count === 0) return { status: "refused", problems: [staleEditMessage(before.catalogId)] };
  await recordAuditEntry(
    {
      actor: input.actor,
      action: "product.update",
      targetType: "product",
      targetId: before.id,
      details: { catalogId: before.catalogId, changes },
    },
    tx,
  );
  return {
    status: "updated",
    id: before.id,
    message: `${pack.catalogId} saved: ${Object.keys(changes).join(", ")} changed${
      changes.priceCents ? " (the new price applies to new orders only)" : ""
    }.`,
  };
}
