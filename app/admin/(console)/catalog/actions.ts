"use server";
// Catalog actions: create and edit lines and packs, open or close a line, enable or disable a pack,
// change a price or a whole line's prices by a percentage (future orders only), and add code stock.
// Each checks the session itself and is audited with the admin's email by its lib function, in the
// same transaction as the change. Next runs server actions only for same-origin requests (Origin
// must match Host): that is the CSRF protection.
import { revalidatePath } from "next/cache";
import { setLineOrderable } from "@/lib/catalog/set-line-orderable";
import { MAX_REFUND_WINDOW_HOURS, setLineRefundWindow } from "@/lib/catalog/set-line-refund-window";
import { setProductActive } from "@/lib/catalog/set-product-active";
import { setProductPrice, MAX_PRODUCT_PRICE_CENTS } from "@/lib/catalog/set-product-price";
import { importInventoryCodes } from "@/lib/catalog/import-inventory-codes";
import type { CodeSource } from "@/lib/catalog/parse-code-list";
import { saveGameLine } from "@/lib/catalog/save-game-line";
import { savePack } from "@/lib/catalog/save-pack";
import { changeLinePrices } from "@/lib/catalog/change-line-prices";
import { parseRequiredFieldsText, parseServerIdOptionsText } from "@/lib/catalog/catalog-fields";
import { parseUsd } from "@/lib/money/parse-usd";
import { formatUsd } from "../../_lib/format";
import {
  idField,
  isConfirmed,
  NOT_CONFIRMED,
  textField,
  versionField,
  type ActionState,
} from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

const CATALOG = "/admin/catalog";

export async function setLineOrderableAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const lineId = idField(formData, "lineId");
  if (lineId === undefined) return { ok: false, message: "No line given." };
  const orderable = textField(formData, "orderable") === "true";
  const result = await setLineOrderable({ lineId, orderable, actor: admin.actor });
  revalidatePath(CATALOG);
  if (result.status === "not_found") return { ok: false, message: "No such line." };
  return {
    ok: true,
    message: `${result.slug} ${orderable ? "takes orders again" : "is closed: new orders answer GAME DISABLED"}.`,
  };
}

export async function setLineRefundWindowAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const lineId = idField(formData, "lineId");
  if (lineId === undefined) return { ok: false, message: "No line given." };
  const text = textField(formData, "refundWindowHours");
  const hours = text === "" ? null : /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  const result = await setLineRefundWindow({ lineId, hours, actor: admin.actor });
  revalidatePath(CATALOG);
  if (result.status === "not_found") return { ok: false, message: "No such line." };
  if (result.status === "invalid")
    return {
      ok: false,
      message: `Refund window: whole hours from 1 to ${MAX_REFUND_WINDOW_HOURS}, or empty for none.`,
    };
  return {
    ok: true,
    message:
      hours === null
        ? `${result.slug} takes no refund requests.`
        : `${result.slug} takes refund requests for ${hours} h after completion.`,
  };
}

export async function setProductActiveAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const productId = idField(formData, "productId");
  if (productId === undefined) return { ok: false, message: "No product given." };
  const active = textField(formData, "active") === "true";
  const result = await setProductActive({ productId, active, actor: admin.actor });
  revalidatePath(CATALOG);
  if (result.status === "not_found") return { ok: false, message: "No such product." };
  return { ok: true, message: `${result.catalogId} ${active ? "enabled" : "disabled"}.` };
}

export async function setProductPriceAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const productId = idField(formData, "productId");
  if (productId === undefined) return { ok: false, message: "No product given." };
  const parsed = parseUsd(textField(formData, "price").replace(/^\$/, ""), MAX_PRODUCT_PRICE_CENTS);
  if (!parsed.ok) return { ok: false, message: parsed.error };
  const result = await setProductPrice({
    productId,
    priceCents: parsed.cents,
    version: versionField(formData),
    actor: admin.actor,
  });
  revalidatePath(CATALOG);
  if (result.status === "not_found") return { ok: false, message: "No such product." };
  if (result.status === "stale") return { ok: false, message: result.message };
  if (result.status === "invalid_price") return { ok: false, message: "That price is not allowed." };
  if (result.status === "unchanged")
    return { ok: true, message: `${result.catalogId} already costs ${formatUsd(result.toCents)}.` };
  return {
    ok: true,
    message: `${result.catalogId}: ${formatUsd(result.fromCents)} → ${formatUsd(result.toCents)} for new orders.`,
  };
}

/** Codes from a pasted list and/or an uploaded CSV or text file, in that order. */
export async function importInventoryCodesAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  const productId = idField(formData, "productId");
  if (productId === undefined) return { ok: false, message: "Choose a product." };
  const sources: CodeSource[] = [];
  const pasted = formData.get("codes");
  if (typeof pasted === "string" && pasted.trim() !== "") sources.push({ label: "pasted list", text: pasted });
  for (const file of formData.getAll("file")) {
    if (file instanceof File && file.size > 0)
      sources.push({ label: (file.name || "file").slice(0, 80), text: await file.text() });
  }
  const result = await importInventoryCodes({ productId, sources, actor: admin.actor });
  revalidatePath(CATALOG);
  switch (result.status) {
    case "imported": {
      const refused = [
        result.alreadyStored.length
          ? `${result.alreadyStored.length} already stored (${placeList(result.alreadyStored)})`
          : "",
        result.repeated.length ? `${result.repeated.length} repeated in the list (${placeList(result.repeated)})` : "",
      ].filter(Boolean);
      return {
        ok: result.added > 0,
        message: `${result.catalogId}: ${result.added} codes added${refused.length ? `; refused as duplicates: ${refused.join(", ")}` : ""}. In stock now: ${result.availableAfter}.`,
      };
    }
    case "invalid_lines":
      return {
        ok: false,
        message: `Nothing stored: unusable lines: ${result.invalid
          .slice(0, 10)
          .map((entry) => `${entry.where} (${entry.reason})`)
          .join(", ")}${result.invalid.length > 10 ? " …" : ""}.`,
      };
    case "empty":
      return { ok: false, message: "No codes given: paste one per line or choose a CSV file." };
    case "too_many":
      return { ok: false, message: `At most ${result.limit} codes per upload: split the file.` };
    case "not_found":
      return { ok: false, message: "No such product." };
    case "not_a_stock_product":
      return { ok: false, message: "That product is a top-up: it has no code stock." };
  }
}

function placeList(places: string[]): string {
  return places.length > 10 ? `${places.slice(0, 10).join(", ")} …` : places.join(", ");
}

/** Checked checkboxes send their value; unchecked ones send nothing. */
function checkbox(formData: FormData, name: string): boolean {
  return textField(formData, name) === "true";
}

function refusalMessage(problems: string[]): string {
  return `Nothing saved: ${problems.join("; ")}.`;
}

/** Creates a line (no lineId) or edits one; required fields and server options come as text, one per line. */
export async function saveGameLineAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  const lineId = idField(formData, "lineId");
  if (textField(formData, "lineId") !== "" && lineId === undefined) return { ok: false, message: "No such line." };
  // Editing can close a line or change what clients must send: it runs only from its confirmation step.
  if (lineId !== undefined && !isConfirmed(formData)) return NOT_CONFIRMED;
  const result = await saveGameLine({
    lineId,
    fields: {
      slug: textField(formData, "slug"),
      code: textField(formData, "code"),
      gameName: textField(formData, "gameName"),
      productName: textField(formData, "productName"),
      kind: textField(formData, "kind"),
      requiredFields: parseRequiredFieldsText(textField(formData, "requiredFields")),
      serverIdOptions: parseServerIdOptionsText(textField(formData, "serverIdOptions")),
      orderable: checkbox(formData, "orderable"),
      available: checkbox(formData, "available"),
      supplier: textField(formData, "supplier") || "sandbox",
    },
    version: versionField(formData),
    actor: admin.actor,
  });
  revalidatePath(CATALOG);
  if (result.status === "refused") return { ok: false, message: refusalMessage(result.problems) };
  return { ok: true, message: result.message };
}

/** Creates a pack on a line (lineId) or edits one (productId). */
export async function savePackAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  const productId = idField(formData, "productId");
  const lineId = idField(formData, "lineId");
  if (productId === undefined && lineId === undefined) return { ok: false, message: "No line or pack given." };
  // Editing can change a price: like the price form, it runs only from its confirmation step.
  if (productId !== undefined && !isConfirmed(formData)) return NOT_CONFIRMED;
  const price = parseUsd(textField(formData, "price").replace(/^\$/, ""), MAX_PRODUCT_PRICE_CENTS);
  if (!price.ok) return { ok: false, message: `Nothing saved: Price: ${price.error}.` };
  const alert = textField(formData, "stockAlertBelow");
  if (alert !== "" && !/^\d{1,9}$/.test(alert))
    return { ok: false, message: "Nothing saved: Stock alert below: a whole number, or empty for no rule." };
  const sku = textField(formData, "supplierSku");
  const result = await savePack({
    productId,
    lineId,
    fields: {
      catalogId: textField(formData, "catalogId"),
      packName: textField(formData, "packName"),
      priceCents: price.cents,
      active: checkbox(formData, "active"),
      stockAlertBelow: alert === "" ? null : Number(alert),
      supplierSku: sku === "" ? null : sku,
    },
    version: versionField(formData),
    actor: admin.actor,
  });
  revalidatePath(CATALOG);
  if (result.status === "refused") return { ok: false, message: refusalMessage(result.problems) };
  return { ok: true, message: result.message };
}

/** Every pack of a line up or down by a percentage (new orders only). */
export async function changeLinePricesAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const lineId = idField(formData, "lineId");
  if (lineId === undefined) return { ok: false, message: "No line given." };
  const result = await changeLinePrices({ lineId, percent: textField(formData, "percent"), actor: admin.actor });
  revalidatePath(CATALOG);
  if (result.status === "refused") return { ok: false, message: result.message };
  return {
    ok: true,
    message: `${result.slug}: ${result.changes
      .map((change) => `${change.catalogId} ${formatUsd(change.fromCents)} → ${formatUsd(change.toCents)}`)
      .join(", ")} for new orders.`,
  };
}
