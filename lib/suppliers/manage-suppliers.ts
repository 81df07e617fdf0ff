// The admin's changes to supplier accounts and offers (the dashboard's suppliers page). Each is
// validated, written in one transaction with its audit entry, and takes effect for the next order
// routed (lib/fulfilment/sql/route-order.ts).
import { z } from "zod";
import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { numberFromDb } from "../db/number-from-db";
import { sealSecret } from "../webhooks/endpoint-secret";
import type { DestinationPolicy } from "../webhooks/check-destination";
import { expectedVersion, nextVersion, staleEditMessage, whereVersion } from "../db/edit-version";
import type { Prisma } from "../generated/prisma/client";
import { supplierKind, supplierKindNames } from "./kinds";
import type { SupplierKind } from "./kinds/supplier-kind";
import { splitSealedSecret } from "./supplier-account";
import { supplierDestinationPolicy } from "./supplier-destination";

export type ManageResult = { status: "saved"; message: string } | { status: "refused"; message: string };

const SupplierName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "a name is 1-40 lower-case letters, digits and dashes");

/**
 * Adds a supplier account (no version given: the name must be new), or changes the one that form
 * was opened on (its version: refused when another admin saved it since). The settings are checked
 * by the account's kind (kinds/). A secret given here is sealed at rest (CODES_ENCRYPTION_KEY) and
 * never shown again; an edit without one keeps the sealed secret, unless `clearSecret` asks to drop it.
 */
export async function saveSupplierAccount(input: SupplierAccountInput): Promise<ManageResult> {
  const checked = await checkSupplierAccount(input);
  if ("refused" in checked) return refused(checked.refused);
  const { name, kind, settings } = checked;
  const expected = expectedVersion(input.version);
  return getPrisma().$transaction(async (tx) => {
    const existing = await tx.supplier.findUnique({ where: { name } });
    if (existing && !expected) return refused(`Supplier ${name} exists: change it with its own form.`);
    if (!existing && expected) return refused(`No supplier ${name}.`);
    const had = existing ? splitSealedSecret(existing.settings).sealedSecret : undefined;
    const kept = input.clearSecret || !kind.sealedSecret ? undefined : had;
    const sealed = input.secret ? sealSecret(input.secret) : kept;
    const secretRefusal = kind.refuseSecret?.(settings, Boolean(sealed));
    if (secretRefusal) return refused(secretRefusal);
    const stored = sealed ? { ...settings, sealedSecret: sealed } : settings;
    let id: number;
    if (existing) {
      const changed = await tx.supplier.updateMany({
        where: whereVersion({ id: existing.id }, expected),
        data: { kind: kind.name, settings: stored, updatedAt: nextVersion(expected) },
      });
      if (changed.count === 0) return refused(staleEditMessage(`Supplier ${name}`));
      id = existing.id;
    } else {
      ({ id } = await tx.supplier.create({ data: { name, kind: kind.name, settings: stored }, select: { id: true } }));
    }
    const secret = input.secret ? "new" : had && !kept ? "cleared" : kept ? "kept" : "none";
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "supplier.save",
        targetType: "supplier",
        targetId: id,
        details: {
          name,
          kind: kind.name,
          settings,
          secret,
          secretSet: Boolean(input.secret),
        } as Prisma.InputJsonObject,
      },
      tx,
    );
    return { status: "saved" as const, message: `Supplier ${name} saved.` };
  });
}

interface SupplierAccountInput {
  name: string;
  kind: string;
  /** The account's settings, as the Suppliers page read them from the kind's inputs. */
  settings: unknown;
  secret?: string;
  clearSecret?: boolean;
  version?: string;
  actor: string;
  policy?: DestinationPolicy;
}

/** The name, and the kind with the settings it accepts; or the first refusal, before anything is written. */
async function checkSupplierAccount(
  input: SupplierAccountInput,
): Promise<{ name: string; kind: SupplierKind; settings: Prisma.InputJsonObject } | { refused: string }> {
  const name = SupplierName.safeParse(input.name);
  if (!name.success) return { refused: `Name: ${name.error.issues[0]!.message}.` };
  const kind = supplierKind(input.kind);
  if (!kind) return { refused: `Kind: one of ${supplierKindNames()}.` };
  const raw = input.settings ?? {};
  if (typeof raw === "object" && "sealedSecret" in raw)
    return { refused: "Settings: sealedSecret is not written here: give the secret in its own field." };
  const settings = kind.settings.safeParse(raw);
  if (!settings.success) {
    const issue = settings.error.issues[0]!;
    return { refused: `Settings: ${issue.path.join(".") || "value"}: ${issue.message}.` };
  }
  if (!kind.sealedSecret && (input.secret || input.clearSecret))
    return { refused: `Secret: a ${kind.name} supplier has none.` };
  if (input.secret && input.clearSecret) return { refused: "Secret: give a new one or clear it, not both." };
  const refusal = await kind.refuseSettings?.(settings.data, input.policy ?? supplierDestinationPolicy());
  // What a kind's schema accepts is JSON: objects, arrays, strings, numbers and booleans.
  return refusal ? { refused: refusal } : { name: name.data, kind, settings: settings.data as Prisma.InputJsonObject };
}

function refused(message: string): ManageResult {
  return { status: "refused", message };
}

export interface SupplierAccountForm {
  name: string;
  kind: string;
  /** The settings without the sealed secret, for the kind's inputs. */
  settings: Record<string, unknown>;
  hasSealedSecret: boolean;
  updatedAt: Date;
}

/** Every supplier account as its edit form shows it: never the sealed secret, only whether there is one. */
export async function listSupplierAccounts(): Promise<SupplierAccountForm[]> {
  const rows = await getPrisma().supplier.findMany({ orderBy: { name: "asc" } });
  return rows.map((row) => {
    const { settings, sealedSecret } = splitSealedSecret(row.settings);
    return {
      name: row.name,
      kind: row.kind,
      settings: (settings ?? {}) as Record<string, unknown>,
      hasSealedSecret: Boolean(sealedSecret),
      updatedAt: row.updatedAt,
    };
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
