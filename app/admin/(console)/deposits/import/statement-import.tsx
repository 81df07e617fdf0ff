"use client";
// The import form: "Preview" shows the rows matched to open requests and the rows matching none
// (changing nothing); "Approve matched" sends back the previewed text and its digest, so what is
// approved is what was shown, or nothing when the open requests changed in between.
import { useActionState } from "react";
import { formatUsd } from "@/lib/money/parse-usd";
import type { StatementPreview } from "@/lib/deposits/import-bank-statement";
import { ActionForm, ActionResult } from "../../../_components/action-form";
import { approveStatementAction, previewStatementAction, type StatementPreviewState } from "./actions";

export function StatementImport() {
  const [state, previewAction, pending] = useActionState<StatementPreviewState, FormData>(previewStatementAction, null);
  const preview = state?.preview;
  return (
    <>
      <section className="panel" aria-label="Statement">
        <form action={previewAction} aria-label="Preview statement" className="action-form stacked">
          <label>
            CSV file <input type="file" name="file" accept=".csv,text/csv,text/plain" />
          </label>
          <textarea
            name="csv"
            aria-label="Statement CSV"
            defaultValue={state?.fileName ? "" : (state?.csv ?? "")}
            placeholder={"date,amount,description\n2026-11-30,50.37,DEP-ABCD2345 from J. Doe"}
          />
          <div className="row">
            <button type="submit" className="primary" disabled={pending}>
              {pending ? "Working…" : "Preview"}
            </button>
          </div>
          <ActionResult state={state} />
        </form>
      </section>
      {preview ? <Matches preview={preview} csv={state?.csv} /> : null}
      {preview && preview.unmatched.length > 0 ? <Unmatched rows={preview.unmatched} /> : null}
    </>
  );
}

function Matches({ preview, csv }: { preview: StatementPreview; csv: string | undefined }) {
  return (
    <section className="panel" aria-label="Matched rows">
      <h2>
        {preview.matches.length} matched row{preview.matches.length === 1 ? "" : "s"}
      </h2>
      {preview.matches.length === 0 ? (
        <p className="empty">No row matches an open request.</p>
      ) : (
        <table className="data" aria-label="Matched rows">
          <thead>
            <tr>
              <th className="num">Line</th>
              <th>Row</th>
              <th className="num">Amount</th>
              <th>Request</th>
              <th>Account</th>
            </tr>
          </thead>
          <tbody>
            {preview.matches.map((match) => (
              <tr key={match.row} data-reference={match.reference}>
                <td className="num">{match.row}</td>
                <td className="mono wrap">{match.text}</td>
                <td className="num">{formatUsd(match.amountCents)}</td>
                <td className="mono">{match.reference}</td>
                <td>#{match.accountId}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {preview.matches.length > 0 && csv ? (
        <ActionForm
          action={approveStatementAction}
          submitLabel="Approve matched"
          tone="primary"
          confirm={`Approve these ${preview.matches.length} deposits and credit the wallets, each once?`}
          label="Approve matched rows"
        >
          <input type="hidden" name="csv" value={csv} />
          <input type="hidden" name="digest" value={preview.digest} />
        </ActionForm>
      ) : null}
    </section>
  );
}

function Unmatched({ rows }: { rows: StatementPreview["unmatched"] }) {
  return (
    <section className="panel" aria-label="Unmatched rows">
      <h2>Unmatched rows (nothing is done with them)</h2>
      <table className="data" aria-label="Unmatched rows">
        <thead>
          <tr>
            <th className="num">Line</th>
            <th>Row</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.row} data-row={row.row}>
              <td className="num">{row.row}</td>
              <td className="mono wrap">{row.text}</td>
              <td>{row.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
