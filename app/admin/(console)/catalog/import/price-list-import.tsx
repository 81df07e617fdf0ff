"use client";
// The import form: "Preview" shows every change and every bad row (changing nothing); when the list
// has no bad row, "Apply" sends back the previewed text and its digest, so what is applied is what
// was shown, or nothing when the catalog changed in between.
import { useActionState } from "react";
import { formatUsd } from "@/lib/money/parse-usd";
import type { PriceListChange, PriceListPreview } from "@/lib/catalog/import-price-list";
import { ActionForm, ActionResult } from "../../../_components/action-form";
import { applyPriceListAction, previewPriceListAction, type PreviewState } from "./actions";

const FIELD_LABELS: Record<string, string> = {
  packName: "name",
  priceCents: "price",
  active: "active",
  stockAlertBelow: "stock alert below",
  supplierSku: "supplier SKU",
};

function show(field: string, value: string | number | boolean | null): string {
  if (value === null) return "—";
  if (field === "priceCents" && typeof value === "number") return formatUsd(value);
  return String(value);
}

function describe(change: PriceListChange): string {
  if (change.kind === "new")
    return `new pack on ${change.line}: ${change.packName}, ${formatUsd(change.priceCents)}, ${change.active ? "enabled" : "disabled"}${
      change.supplierSku ? `, SKU ${change.supplierSku}` : ""
    }${change.stockAlertBelow !== null ? `, stock alert below ${change.stockAlertBelow}` : ""}`;
  return change.changes
    .map((entry) => `${FIELD_LABELS[entry.field]} ${show(entry.field, entry.from)} → ${show(entry.field, entry.to)}`)
    .join("; ");
}

export function PriceListImport() {
  const [state, previewAction, pending] = useActionState<PreviewState, FormData>(previewPriceListAction, null);
  const preview = state?.preview;
  return (
    <>
      <section className="panel" aria-label="Price list">
        <form action={previewAction} aria-label="Preview price list" className="action-form stacked">
          <label>
            CSV file <input type="file" name="file" accept=".csv,text/csv,text/plain" />
          </label>
          <textarea
            name="csv"
            aria-label="Price list CSV"
            defaultValue={state?.fileName ? "" : (state?.csv ?? "")}
            placeholder={"catalog_id,line,name,price_usd,active\nSVCBR60,br,60 UC,0.99,true"}
          />
          <div className="row">
            <button type="submit" className="primary" disabled={pending}>
              {pending ? "Working…" : "Preview"}
            </button>
          </div>
          <ActionResult state={state} />
        </form>
      </section>
      {preview && preview.errors.length > 0 ? <BadRows errors={preview.errors} /> : null}

      {preview && preview.changes.length > 0 ? <Changes preview={preview} csv={state?.csv} /> : null}
    </>
  );
}

function BadRows({ errors }: { errors: PriceListPreview["errors"] }) {
  return (
    <section className="panel" aria-label="Bad rows">
      <h2>Bad rows (nothing is applied while there is one)</h2>
      <table className="data" aria-label="Bad rows">
        <thead>
          <tr>
            <th className="num">Line</th>
            <th>What is wrong</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((error) => (
            <tr key={`${error.row}-${error.message}`} data-row={error.row}>
              <td className="num">{error.row}</td>
              <td>{error.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The previewed changes, and the Apply form when the list has no bad row. */
function Changes({ preview, csv }: { preview: PriceListPreview; csv: string | undefined }) {
  return (
    <section className="panel" aria-label="Changes">
      <h2>
        {preview.changes.length} change{preview.changes.length === 1 ? "" : "s"}
        {preview.unchanged ? `, ${preview.unchanged} unchanged` : ""}
      </h2>
      <table className="data" aria-label="Changes">
        <thead>
          <tr>
            <th className="num">Line</th>
            <th>Catalog id</th>
            <th>Change</th>
          </tr>
        </thead>
        <tbody>
          {preview.changes.map((change) => (
            <tr key={change.catalogId} data-catalog-id={change.catalogId}>
              <td className="num">{change.row}</td>
              <td className="mono">{change.catalogId}</td>
              <td>{describe(change)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {preview.errors.length === 0 && csv ? (
        <ActionForm
          action={applyPriceListAction}
          submitLabel="Apply"
          tone="primary"
          confirm={`Apply these ${preview.changes.length} changes in one go? New prices apply to new orders only.`}
          label="Apply price list"
        >
          <input type="hidden" name="csv" value={csv} />
          <input type="hidden" name="digest" value={preview.digest} />
        </ActionForm>
      ) : null}
    </section>
  );
}
