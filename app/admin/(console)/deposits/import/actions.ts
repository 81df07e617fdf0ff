"use server";
// Bank statement import, shaped like the price list's: "Preview" reads the CSV (pasted or uploaded)
// against the open deposit requests and answers the matches and the unmatched rows, changing
// nothing; "Approve matched" sends the same text back with the preview's digest and approves exactly
// those matches, each once (lib/deposits/import-bank-statement.ts). Approving is a credit: operators
// with a recent second factor, as on the queue.
import { revalidatePath } from "next/cache";
import {
  approveStatementMatches,
  previewBankStatement,
  MAX_STATEMENT_BYTES,
  type StatementPreview,
} from "@/lib/deposits/import-bank-statement";
import { isConfirmed, NOT_CONFIRMED, textField, type ActionState } from "../../../_lib/action-state";
import { requireAdminForAction } from "../../../_lib/session";

export type StatementPreviewState =
  (NonNullable<ActionState> & { preview?: StatementPreview; csv?: string; fileName?: string }) | null;

async function readCsv(formData: FormData): Promise<{ csv: string; fileName?: string } | { error: string }> {
  const file = formData instanceof FormData ? formData.get("file") : null;
  if (file instanceof File && file.size > 0) {
    if (file.size > MAX_STATEMENT_BYTES) return { error: "The file is larger than 1 MB: split it." };
    return { csv: await file.text(), fileName: file.name.slice(0, 80) };
  }
  const pasted = formData instanceof FormData ? formData.get("csv") : null;
  return { csv: typeof pasted === "string" ? pasted : "" };
}

export async function previewStatementAction(
  _state: StatementPreviewState,
  formData: FormData,
): Promise<StatementPreviewState> {
  const gate = await requireAdminForAction("operator");
  if ("refusal" in gate) return gate.refusal;
  const read = await readCsv(formData);
  if ("error" in read) return { ok: false, message: read.error };
  if (read.csv.trim() === "") return { ok: false, message: "Paste a statement or choose a CSV file." };
  const preview = await previewBankStatement(read.csv);
  if ("error" in preview) return { ok: false, message: `Not read: ${preview.error}.` };
  const { matches, unmatched } = preview;
  return {
    ok: true,
    message: `${matches.length} row${matches.length === 1 ? "" : "s"} matched to open requests, ${unmatched.length} unmatched.`,
    preview,
    csv: read.csv,
    fileName: read.fileName,
  };
}

export async function approveStatementAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("operator", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const csv = formData.get("csv");
  const digest = textField(formData, "digest");
  if (typeof csv !== "string" || csv === "" || digest === "")
    return { ok: false, message: "Preview the statement first." };
  const result = await approveStatementMatches({
    csv,
    digest,
    by: { adminUserId: gate.admin.id, actor: gate.admin.actor },
  });
  revalidatePath("/admin/deposits");
  if ("error" in result) return { ok: false, message: `Not read: ${result.error}.` };
  switch (result.status) {
    case "done": {
      const parts = [`Approved ${result.approved} deposit${result.approved === 1 ? "" : "s"}`];
      if (result.awaitingSecond > 0)
        parts.push(`${result.awaitingSecond} first approval(s) waiting for a second admin`);
      if (result.skipped > 0)
        parts.push(`${result.skipped} decided by someone else meanwhile (nothing credited for them)`);
      return { ok: true, message: `${parts.join("; ")}.` };
    }
    case "stale":
      return { ok: false, message: "Nothing approved: the open requests changed since the preview. Preview again." };
    case "nothing_to_approve":
      return { ok: false, message: "Nothing to approve: no row matches an open request." };
  }
}
