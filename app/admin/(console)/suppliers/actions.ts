"use server";
// Supplier actions: pause or resume a supplier, save a supplier account, save or remove a pack's
// offer. Each checks the session itself and is audited by its lib function with the admin's email.
import { revalidatePath } from "next/cache";
import { setSupplierPaused } from "@/lib/suppliers/pause-supplier";
import { removeSupplierOffer, saveSupplierAccount, saveSupplierOffer } from "@/lib/suppliers/manage-suppliers";
import { supplierKind } from "@/lib/suppliers/kinds";
import { settingsFromForm } from "@/lib/suppliers/kinds/settings-fields";
import { parseUsd } from "@/lib/money/parse-usd";
import {
  idField,
  isConfirmed,
  NOT_CONFIRMED,
  textField,
  versionField,
  type ActionState,
} from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

const SUPPLIERS = "/admin/suppliers";

export async function setSupplierPausedAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const supplierId = idField(formData, "supplierId");
  if (supplierId === undefined) return { ok: false, message: "No supplier given." };
  const paused = textField(formData, "paused") === "true";
  const result = await setSupplierPaused({ supplierId, paused, actor: admin.actor });
  revalidatePath(SUPPLIERS);
  if (result.status === "not_found") return { ok: false, message: "No such supplier." };
  return { ok: true, message: `${result.name} ${paused ? "paused: orders go to other suppliers" : "resumed"}.` };
}

export async function saveSupplierAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  const kind = textField(formData, "kind");
  // The kind's own inputs (lib/suppliers/kinds/); an unknown kind is refused by saveSupplierAccount.
  const settings = settingsFromForm(supplierKind(kind)?.fields ?? [], (input) => textField(formData, input));
  if (!settings.ok) return { ok: false, message: settings.message };
  const result = await saveSupplierAccount({
    name: textField(formData, "name"),
    kind,
    settings: settings.settings,
    secret: textField(formData, "secret") || undefined,
    clearSecret: textField(formData, "clearSecret") === "yes",
    version: versionField(formData),
    actor: admin.actor,
  });
  revalidatePath(SUPPLIERS);
  return { ok: result.status === "saved", message: result.message };
}

export async function saveOfferAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  const cost = textField(formData, "cost");
  const costCents = cost === "0" ? { ok: true as const, cents: 0 } : parseUsd(cost);
  if (!costCents.ok) return { ok: false, message: `Cost: ${costCents.error}.` };
  const result = await saveSupplierOffer({
    catalogId: textField(formData, "catalogId"),
    supplierName: textField(formData, "supplier"),
    sku: textField(formData, "sku"),
    costCents: costCents.cents,
    priority: Number(textField(formData, "priority") || "1"),
    actor: admin.actor,
  });
  revalidatePath(SUPPLIERS);
  return { ok: result.status === "saved", message: result.message };
}

export async function removeOfferAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const offerId = idField(formData, "offerId");
  if (offerId === undefined) return { ok: false, message: "No offer given." };
  const result = await removeSupplierOffer({ offerId, actor: admin.actor });
  revalidatePath(SUPPLIERS);
  return { ok: result.status === "saved", message: result.message };
}
