// Import a bank statement (CSV): preview which rows match open deposit requests, then approve them together.
import Link from "next/link";
import { STATEMENT_COLUMNS } from "@/lib/deposits/import-bank-statement";
import { requireAdminPage } from "../../../_lib/session";
import { StatementImport } from "./statement-import";

export const metadata = { title: "Import a bank statement · Top-up operations" };

export default async function ImportStatementPage() {
  await requireAdminPage();
  return (
    <>
      <h1>Import a bank statement</h1>
      <section className="panel" aria-label="Statement format">
        <p>
          One row per transfer: <code>{STATEMENT_COLUMNS.join(",")}</code> (<code>description</code> may be left out).
          The date is <code>YYYY-MM-DD</code> or an ISO time (UTC unless it has an offset); the amount is USD with up to
          two decimals, negative for outgoing. A row matches the open request expecting exactly its amount, dated within
          that request&apos;s time (a reference in the description picks among several). Matched rows are approved
          together, each request once; importing the same file again approves nothing. See the{" "}
          <Link href="/admin/deposits">deposits</Link>.
        </p>
      </section>
      <StatementImport />
    </>
  );
}
