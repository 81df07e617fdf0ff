// Deposits: the queue of holders' deposit requests (/deposit in the bot) with filters and each
// request's proof; operators approve (a credit, once, whoever decides first: bot or dashboard) or
// reject with a reason; above the large-credit amount two admins approve. Owners set the payment
// methods /deposit answers and how long a request stays open. The deposits' audit entries below.
import Link from "next/link";
import { listDepositRequests, type DepositFilters, type DepositQueueItem } from "@/lib/deposits/list-deposit-requests";
import { DEPOSIT_STATUSES, type DepositStatus } from "@/lib/deposits/deposit-request";
import { readDepositSettings } from "@/lib/deposits/deposit-settings";
import { listAuditEntries } from "@/lib/dashboard/list-audit-entries";
import { readLargeCreditThreshold } from "@/lib/settings/read-large-credit-threshold";
import { requireAdminPage } from "../../_lib/session";
import { single, type PageSearchParams } from "../../_lib/search-params";
import { formatTime, formatUsd } from "../../_lib/format";
import { DataTable } from "../../_components/data-table";
import { GatedActionForm } from "../../_components/gated-action-form";
import { VersionField } from "../../_components/version-field";
import { NEVER_SAVED } from "@/lib/db/edit-version";
import { approveDepositAction, rejectDepositAction, saveDepositSettingsAction } from "./actions";

export const metadata = { title: "Deposits · Top-up operations" };

const BADGE: Record<DepositStatus, string> = {
  pending: "pending",
  approved: "good",
  rejected: "bad",
  expired: "refused",
};

function readFilters(params: Record<string, string | string[] | undefined>): DepositFilters {
  const status = single(params, "status");
  const account = single(params, "account");
  return {
    status:
      status === "all"
        ? undefined
        : DEPOSIT_STATUSES.includes(status as DepositStatus)
          ? (status as DepositStatus)
          : "pending",
    accountId: /^\d{1,9}$/.test(account) ? Number(account) : undefined,
    reference: single(params, "reference").slice(0, 20) || undefined,
  };
}

export default async function DepositsPage({ searchParams }: { searchParams: PageSearchParams }) {
  await requireAdminPage();
  const params = await searchParams;
  const filters = readFilters(params);
  const [deposits, settings, threshold, audit] = await Promise.all([
    listDepositRequests(filters),
    readDepositSettings(),
    readLargeCreditThreshold(),
    listAuditEntries({ action: "deposit." }, { limit: 20 }),
  ]);
  return (
    <>
      <h1>Deposits</h1>
      <p className="muted">
        Holders ask with <code>/deposit</code> in the bot and transfer a unique amount; approving credits the wallet
        once (above {formatUsd(threshold.value)} two admins approve). Matching a bank statement:{" "}
        <Link href="/admin/deposits/import">import a statement</Link>.
      </p>
      <form className="filters" method="get" action="/admin/deposits" aria-label="Filter deposits">
        <label>
          State
          <select name="status" defaultValue={filters.status ?? "all"}>
            {[...DEPOSIT_STATUSES, "all"].map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </label>
        <label>
          Account id
          <input name="account" defaultValue={filters.accountId ?? ""} size={8} />
        </label>
        <label>
          Reference
          <input name="reference" defaultValue={filters.reference ?? ""} placeholder="DEP-…" size={14} />
        </label>
        <button type="submit">Filter</button>
        <Link href="/admin/deposits">Reset</Link>
      </form>
      <DataTable
        label="Deposit requests"
        columns={["Reference", "Account", { label: "Amount", num: true }, "Asked", "Open until", "State", "Proof", ""]}
        rows={deposits}
        empty="No deposit requests."
      >
        {(deposit) => <DepositRow key={deposit.id} deposit={deposit} />}
      </DataTable>
      <DepositMethodsForm
        methods={settings.methods.map((method) => `${method.name}\n${method.instructions}`).join("\n\n")}
        validityMinutes={settings.validityMinutes}
        savedAt={settings.updatedAt ?? NEVER_SAVED}
        updated={
          settings.updatedBy
            ? `Last changed by ${settings.updatedBy} at ${formatTime(settings.updatedAt)}.`
            : "Never set."
        }
      />
      <section className="panel" aria-label="Deposit audit log">
        <h2>Audit log</h2>
        <DataTable
          label="Deposit audit entries"
          columns={["When", "Actor", "Action", "Details"]}
          rows={audit.entries}
          empty="No entries."
        >
          {(entry) => (
            <tr key={entry.id} data-action={entry.action}>
              <td>{formatTime(entry.createdAt)}</td>
              <td className="mono">{entry.actor}</td>
              <td>{entry.action}</td>
              <td className="mono wrap details">{entry.details === null ? "" : JSON.stringify(entry.details)}</td>
            </tr>
          )}
        </DataTable>
        <Link href="/admin/audit?action=deposit.">All deposit entries</Link>
      </section>
    </>
  );
}

function DepositRow({ deposit }: { deposit: DepositQueueItem }) {
  return (
    <tr data-reference={deposit.reference} data-status={deposit.status}>
      <td className="mono">{deposit.reference}</td>
      <td>
        <Link href={`/admin/accounts/${deposit.accountId}`}>
          #{deposit.accountId}
          {deposit.accountUsername ? ` @${deposit.accountUsername}` : ""}
        </Link>
      </td>
      <td className="num">
        {formatUsd(deposit.amountCents)}
        <div className="muted small">asked {formatUsd(deposit.requestedCents)}</div>
      </td>
      <td>{formatTime(deposit.createdAt)}</td>
      <td>{formatTime(deposit.expiresAt)}</td>
      <td>
        <span className={`badge ${BADGE[deposit.status]}`}>{deposit.status}</span>
        {deposit.firstApprovedBy && deposit.status === "pending" ? (
          <div className="small">first approval: {deposit.firstApprovedBy}</div>
        ) : null}
        {deposit.resolvedBy ? <div className="small muted">by {deposit.resolvedBy}</div> : null}
        {deposit.rejectReason ? <div className="small">{deposit.rejectReason}</div> : null}
        {deposit.statementRow ? <div className="small mono">statement: {deposit.statementRow}</div> : null}
      </td>
      <td className="wrap">
        {deposit.proofKind && deposit.proofKind !== "text" ? (
          <a href={`/admin/deposits/${deposit.id}/proof`} target="_blank" rel="noreferrer">
            {deposit.proofKind === "photo" ? "photo" : (deposit.proofFileName ?? "document")}
          </a>
        ) : null}
        {deposit.proofText ? <div className="small">“{deposit.proofText}”</div> : null}
        {!deposit.proofKind ? <span className="muted">none</span> : null}
      </td>
      <td>{deposit.status === "pending" ? <DecideForms deposit={deposit} /> : null}</td>
    </tr>
  );
}

function DecideForms({ deposit }: { deposit: DepositQueueItem }) {
  return (
    <>
      <GatedActionForm
        role="operator"
        action={approveDepositAction}
        submitLabel="Approve"
        tone="primary"
        confirm={`Credit ${formatUsd(deposit.amountCents)} to account #${deposit.accountId} for ${deposit.reference}?`}
        label={`Approve ${deposit.reference}`}
      >
        <input type="hidden" name="depositId" value={deposit.id} />
      </GatedActionForm>
      <GatedActionForm
        role="operator"
        action={rejectDepositAction}
        submitLabel="Reject"
        tone="danger"
        confirm={`Reject ${deposit.reference}? The holder is told the reason; nothing is credited.`}
        label={`Reject ${deposit.reference}`}
      >
        <input type="hidden" name="depositId" value={deposit.id} />
        <input name="reason" aria-label="Reason" placeholder="why (holder reads it)" required size={12} />
      </GatedActionForm>
    </>
  );
}

function DepositMethodsForm({
  methods,
  validityMinutes,
  savedAt,
  updated,
}: {
  methods: string;
  validityMinutes: number;
  /** The version the form carries (the newer of the two settings'). */
  savedAt: Date;
  updated: string;
}) {
  return (
    <section className="panel" aria-label="Payment methods">
      <h2>Payment methods</h2>
      <p className="muted">
        What <code>/deposit</code> answers, with the amount and the reference. One method per block: its name on the
        first line, its instructions (account details, an address) on the next; a blank line between methods. {updated}
      </p>
      <GatedActionForm
        role="owner"
        action={saveDepositSettingsAction}
        submitLabel="Save methods"
        confirm="Save these payment methods? New deposit requests show them at once."
        label="Payment methods"
        layout="stacked"
      >
        <VersionField updatedAt={savedAt} />
        <textarea name="methods" aria-label="Methods" defaultValue={methods} rows={8} />
        <label>
          Requests valid for{" "}
          <input name="validityMinutes" defaultValue={validityMinutes} size={6} inputMode="numeric" /> minutes
        </label>
      </GatedActionForm>
    </section>
  );
}
