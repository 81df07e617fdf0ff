// The admin's changes to supplier accounts and offers (the dashboard's suppliers page). Each is
// validated, written in one transaction with its audit entry, and takes effect for the next order
// routed (lib/fulfilment/sql/route-order.ts).
import { z } from "zod";
import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { numberFromDb } from "../db/number-from-db";
import { sealSecret } from "../webhooks/endpoint-secret";
import { SUPPLIER_KINDS, SUPPLIER_SETTINGS, type SupplierKind } from "./supplier-account";

export type ManageResult = { status: "saved"; message: string } | { status: "refused"; message: string };

const SupplierName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "a name is 1-40 lower-case letters, digits and dashes");

/**
 * Adds a supplier account, or replaces the settings of the one with that name. An h2h secret given
 * here is sealed at rest (CODES_ENCRYPTION_KEY) and never shown again.
 */
export async function saveSupplierAccount(input: {
  name: string;
  kind: string;
  settingsJson: string;
  secret?: string;
  actor: string;
}): Promise<ManageResult> {
  const name = SupplierName.safeParse(input.name);
  if (!name.success) return { status: "refused", message: `Name: ${name.error.issues[0]!.message}.` };
  if (!(SUPPLIER_KINDS as readonly string[]).includes(input.kind))
    return { status: "refused", message: `Kind: one of ${SUPPLIER_KINDS.join(", ")}.` };
  const kind = input.kind as SupplierKind;
  let raw: unknown;
  try {
    raw = JSON.parse(input.settingsJson.trim() || "{}");
  } catch {
    return { status: "refused", message: "Settings: not JSON." };
  }
  const settings = SUPPLIER_SETTINGS[kind].safeParse(raw);
  if (!settings.success) {
    const issue = settings.error.issues[0]!;
    return { status: "refused", message: `Settings: ${issue.path.join(".") || "value"}: ${issue.message}.` };
  }
  const stored = input.secret ? { ...settings.data, sealedSecret: sealSecret(input.secret) } : settings.data;
  return getPrisma().$transaction(async (tx) => {
    const row = await tx.supplier.upsert({
      where: { name: name.data },
      update: { kind, settings: stored },
      create: { name: name.data, kind, settings: stored },
      select: { id: true },
    });
    const { sealedSecret: _sealed, ...shown } = stored as { sealedSecret?: string };
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "supplier.save",
        targetType: "supplier",
        targetId: row.id,
        details: { name: name.data, kind, settings: shown, secretSet: Boolean(input.secret) },
      },
      tx,
    );
    return { status: "saved" as const, message: `Supplier ${name.data} saved.` };
  });
}

/** A pack carried by a supplier: its SKU there, its cost and its priority (lower first). */
export async function saveSupplierOffer(input: {
  catalogId: string;
  supplierName: string;
  sku: string;
  costCents: number;
  priority: number;
  actor: string;
}): Promise<ManageResult> {
  if (!input.sku) return { status: "refused", message: "SKU: required." };
  if (!Number.isInteger(input.priority) || input.priority < 1 || input.priority > 100)
    return { status: "refused", message: "Priority: a whole number from 1 to 100." };
  return getPrisma().$transaction(async (tx) => {
    const product = await tx.product.findUnique({ where: { catalogId: input.catalogId }, include: { line: true } });
    if (!product || product.line.kind !== "topup")
      return { status: "refused" as const, message: `No top-up pack ${input.catalogId}.` };
    const supplier = await tx.supplier.findUnique({ where: { name: input.supplierName } });
    if (!supplier) return { status: "refused" as const, message: `No supplier ${input.supplierName}.` };
    const data = { sku: input.sku, costCents: BigInt(input.costCents), priority: input.priority };
    const offer = await tx.supplierOffer.upsert({
      where: { productId_supplierId: { productId: product.id, supplierId: supplier.id } },
      update: data,
      create: { productId: product.id, supplierId: supplier.id, ...data },
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "supplier.offer_save",
        targetType: "supplier_offer",
        targetId: offer.id,
        details: { catalogId: input.catalogId, supplier: supplier.name, ...data, costCents: input.costCents },
      },
      tx,
    );
    return {
      status: "saved" as const,
      message: `${input.catalogId} at ${supplier.name}: ${input.sku}, cost ${numberFromDb(offer.costCents)} cents, priority ${input.priority}.`,
    };
  });
}

export async function removeSupplierOffer(input: { offerId: number; actor: string }): Promise<ManageResult> {
  return getPrisma().$transaction(async (tx) => {
    const [offer] = await tx.supplierOffer.findMany({
      where: { id: input.offerId },
      include: { product: { select: { catalogId: true } }, supplier: { select: { name: true } } },
    });
    if (!offer) return { status: "refused" as const, message: "No such offer." };
    await tx.supplierOffer.delete({ where: { id: offer.id } });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "supplier.offer_remove",
        targetType: "supplier_offer",
        targetId: offer.id,
        details: { catalogId: offer.product.catalogId, supplier: offer.supplier.name },
      },
      tx,
    );
    return {
      status: "saved" as const,
      message: `${offer.product.catalogId} is no longer sent to ${offer.supplier.name}.`,
    };
  });
}

export interface PackOffers {
  catalogId: string;
  packName: string;
  priceCents: number;
  offers: { id: number; supplier: string; sku: string; costCents: number; priority: number }[];
}

/** Every top-up pack with its offers in routing order. */
export async function listPackOffers(): Promise<PackOffers[]> {
  const products = await getPrisma().product.findMany({
    where: { line: { kind: "topup" } },
    orderBy: [{ line: { sortOrder: "asc" } }, { sortOrder: "asc" }],
    include: {
      offers: { include: { supplier: { select: { name: true } } }, orderBy: [{ priority: "asc" }, { id: "asc" }] },
    },
  });
  return products.map((product) => ({
    catalogId: product.catalogId,
    packName: product.packName,
    priceCents: numberFromDb(product.priceCents),
    offers: product.offers.map((offer) => ({
      id: offer.id,
      supplier: offer.supplier.name,
      sku: offer.sku,
      costCents: numberFromDb(offer.costCents),
      priority: offer.priority,
    })),
  }));
}
