"use server";
// Price-list import: "Preview" reads the CSV (pasted or uploaded) against the catalog and answers
// every change and every bad row, changing nothing; "Apply" sends the same text back with the
// preview's digest and applies it only if it still reads as exactly that list, in one transaction.
import { revalidatePath } from "next/cache";
import {
  importPriceList,
  previewPriceList,
  MAX_PRICE_LIST_BYTES,
  type PriceListPreview,
} from "@/lib/catalog/import-price-list";
import { isConfirmed, NOT_CONFIRMED, textField, type ActionState } from "../../../_lib/action-state";
import { requireAdminForAction } from "../../../_lib/session";

/** A preview's answer: the message, and the list with the text it was read from. */
export type PreviewState =
  | (NonNullable<ActionState> & { preview?: PriceListPreview; csv?: string; fileName?: string })
  | null;

async function readCsv(formData: FormData): Promise<{ csv: string; fileName?: string } | { error: string }> {
  const file = formData instanceof FormData ? formData.get("file") : null;
  if (file instanceof File && file.size > 0) {
    if (file.size > MAX_PRICE_LIST_BYTES) return { error: "The file is larger than 1 MB: split it." };
    return { csv: await file.text(), fileName: file.name.slice(0, 80) };
  }
  const pasted = formData instanceof FormData ? formData.get("csv") : null;
  return { csv: typeof pasted === "string" ? pasted : "" };
}

export async function previewPriceListAction(_state: PreviewState, formData: FormData): Promise<PreviewState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const read = await readCsv(formData);
  if ("error" in read) return { ok: false, message: read.error };
  if (read.csv.trim() === "") return { ok: false, message: "Paste a price list or choose a CSV file." };
  const preview = await previewPriceList(read.csv);
  const { changes, errors, unchanged } = preview;
  if (errors.length > 0)
    return {
      ok: false,
      message: `${errors.length} bad row${errors.length === 1 ? "" : "s"}: nothing can be applied until ${errors.length === 1 ? "it is" : "they are"} fixed.`,
      preview,
      csv: read.csv,
      fileName: read.fileName,
    };
  return {
    ok: true,
    message:
      changes.length === 0
        ? `Nothing to change: ${unchanged} row${unchanged === 1 ? "" : "s"} match the catalog.`
        : `${changes.length} change${changes.length === 1 ? "" : "s"} to apply, ${unchanged} row${unchanged === 1 ? "" : "s"} unchanged.`,
    preview,
    csv: read.csv,
    fileName: read.fileName,
  };
}

export async function applyPriceListAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const csv = formData.get("csv");
  const digest = textField(formData, "digest");
  if (typeof csv !== "string" || csv === "" || digest === "") return { ok: false, message: "Preview the list first." };
  const result = await importPriceList({ csv, digest, actor: admin.actor });
  revalidatePath("/admin/catalog");
  switch (result.status) {
    case "applied":
      return {
        ok: true,
        message: `Applied: ${result.created} pack${result.created === 1 ? "" : "s"} created, ${result.updated} changed (prices apply to new orders only).`,
      };
    case "invalid":
      return { ok: false, message: "Nothing applied: the list has bad rows. Preview it again." };
    case "stale":
      return {
        ok: false,
        message: "Nothing applied: the catalog changed since the preview. Preview again to see the changes as they are now.",
      };
    case "nothing_to_apply":
      return { ok: false, message: "Nothing to apply: the catalog already matches the list." };
  }
}
